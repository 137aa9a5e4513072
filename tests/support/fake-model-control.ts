import type { RecordedRequest } from "./fake-model";
import type { Rule, Step } from "./fake-model-script";

/** Drives a fake model running in another process (e.g. behind an e2e production server). */
export function fakeModelControl(baseUrl: string) {
  const root = baseUrl.replace(/\/v1\/?$/, "");
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${root}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake model control ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    setRules: (rules: Rule[]) => post("/__control/rules", rules),
    enqueue: (...steps: Step[]) => post("/__control/enqueue", steps),
    /** Speak a provider's dialect by name (tests/support/dialects), or plain OpenAI with null. */
    dialect: (name: string | null, flags?: { toolsOff?: boolean; refuseMaxTokens?: boolean }) =>
      post("/__control/dialect", { name, flags }),
    reset: () => post("/__control/reset"),
    requests: async (): Promise<RecordedRequest[]> => (await fetch(`${root}/__control/requests`)).json(),
  };
}
