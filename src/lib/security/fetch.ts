// Placeholder: the Tool packs work replaces this with the guarded fetch.
// biome-ignore lint/suspicious/noExplicitAny: upstream JSON is untyped until a pack projects it
export async function getJson(_url: string, _opts?: { signal?: AbortSignal }): Promise<any> {
  throw new Error("getJson is not implemented yet");
}
