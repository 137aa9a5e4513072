import "server-only";
import { parentPort } from "node:worker_threads";
import { chunkSections, extractDocument, searchText } from "./extract";
import { prepareChunks } from "./prepare";

// The extraction worker: HTML, PDF and DOCX parsing run here, on their own thread, so a large page or file
// never holds up the event loop that streams chat answers; so do the chunking, hashing and word splitting of
// what they extracted (./prepare.ts). Plain data in and out (structured clone).

type Request = { id: number; bytes: Uint8Array; contentType: string; url: string };

parentPort?.on("message", (req: Request) => {
  extractDocument({ bytes: req.bytes, contentType: req.contentType, url: req.url }).then(
    (result) => {
      const prepared = result.ok ? prepareChunks(result.doc, (s) => chunkSections(s), searchText) : undefined;
      parentPort?.postMessage({
        id: req.id,
        result: result.ok ? { ...result, doc: { ...result.doc, prepared } } : result,
      });
    },
    (err: unknown) =>
      parentPort?.postMessage({
        id: req.id,
        result: { ok: false, reason: "unreadable", message: (err as Error)?.message ?? "extraction failed" },
      }),
  );
});

// The pool sends nothing before this: a worker started from source loads its modules first.
parentPort?.postMessage({ ready: true });
