/**
 * A chunked request body (no Content-Length) of `total` bytes, produced only as the reader pulls it, so a test
 * can tell how much of an upload the server read before refusing it.
 */
export function lazyBody(total: number, chunk = 8 * 1024) {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk;
      controller.enqueue(new Uint8Array(chunk).fill(0x61));
    },
  });
  return { stream, pulled: () => sent };
}
