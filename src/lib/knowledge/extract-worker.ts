import "server-only";
import { parentPort } from "node:worker_threads";
import { extractDocument } from "./extract";

// The extraction worker: HTML, PDF and DOCX parsing run here, on their own thread, so a large page or file
// never holds up the event loop that streams chat answers. Plain data in and out (structured clone).

type Request = { id: number; bytes: Uint8Array; contentType: string; url: string };

parentPort?.on("message", (req: Request) => {
  extractDocument({ bytes: req.bytes, contentType: req.contentType, url: req.url }).then(
    (result) => parentPort?.postMessage({ id: req.id, result }),
    (err: unknown) =>
      parentPort?.postMessage({
        id: req.id,
        result: { ok: false, reason: "unreadable", message: (err as Error)?.message ?? "extraction failed" },
      }),
  );
});

// The pool sends nothing before this: a worker started from source loads its modules first.
parentPort?.postMessage({ ready: true });
