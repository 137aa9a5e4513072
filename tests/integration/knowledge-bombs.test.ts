import { afterAll, describe, expect, it } from "vitest";
import { createExtractPool, type ExtractPool } from "@/lib/knowledge/extract-pool";
import { docxBomb, pdfBomb } from "../support/bombs";
import { writePdf } from "../support/pdf-writer";
import { writeDocx } from "../support/zip-writer";

// Documents that would take the reader down (issue 44, finding 2), read in the extraction workers next to
// honest ones: a 1 MB PDF whose stream inflates to 1 GiB and a DOCX whose text part unpacks to 28 MB are
// refused with their reason, the process does not grow by gigabytes, and the other documents of the batch are
// read. A worker that is stuck past the deadline or dies fails only the document it was reading.

const PDF = "application/pdf";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const MB = 1024 * 1024;
const pools: ExtractPool[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
});

// A stand-in worker speaking the pool's messages: "hang" never answers, "crash" fills its heap until the
// worker's resource limit ends it, anything else is read at once.
const stub = new URL(
  `data:text/javascript,${encodeURIComponent(`
import { parentPort } from "node:worker_threads";
parentPort.on("message", (req) => {
  if (req.url.includes("hang")) for (;;) {}
  if (req.url.includes("crash")) { const keep = []; for (;;) keep.push(new Array(1e6).fill(req.url)); }
  parentPort.postMessage({ id: req.id, result: { ok: true, doc: { title: req.url } } });
});
parentPort.postMessage({ ready: true });
`)}`,
);

describe("the extraction workers", () => {
  it("refuse the PDF and DOCX bombs with their reason and read the rest of the batch", async () => {
    const pool = createExtractPool();
    pools.push(pool);
    const bomb = await pdfBomb();
    const before = process.memoryUsage().rss;
    const [pdf, docx, okPdf, okDocx] = await Promise.all([
      pool.extract({ bytes: bomb, contentType: PDF, url: "https://a.example/bomb.pdf" }),
      pool.extract({ bytes: docxBomb(), contentType: DOCX, url: "https://a.example/bomb.docx" }),
      pool.extract({
        bytes: writePdf([[{ text: "Opening hours", size: 20 }, { text: "Every day from 8 to 18." }]]),
        contentType: PDF,
        url: "https://a.example/hours.pdf",
      }),
      pool.extract({
        bytes: new Uint8Array(writeDocx([{ text: "Parking", heading: 1 }, { text: "Behind the café." }])),
        contentType: DOCX,
        url: "https://a.example/parking.docx",
      }),
    ]);
    expect(pdf).toMatchObject({ ok: false, reason: "zip_bomb" });
    expect(pdf.ok ? "" : pdf.message).toContain("compression bomb");
    expect(docx).toMatchObject({ ok: false, reason: "too_large" });
    expect(docx.ok ? "" : docx.message).toContain("text parts unpack to more than 10 MB");
    expect(okPdf).toMatchObject({ ok: true, doc: { title: "Opening hours" } });
    expect(okDocx).toMatchObject({ ok: true, doc: { title: "Parking" } });
    // A generous bound (the issue saw +1.5 GB from the PDF alone): the workers' own heaps fit well under it.
    expect(process.memoryUsage().rss - before).toBeLessThan(600 * MB);
  }, 120_000);

  it("end a stuck or dying reader's worker and fail only its document", async () => {
    // A 32 MB heap: filling the production 384 MB one takes seconds of collection under load, long enough for
    // the deadline to end the worker first and the test to see a timeout where it means to see a crash.
    const pool = createExtractPool({ entry: stub, deadlineMs: 2_000, workers: 1, heapMb: 32 });
    pools.push(pool);
    const doc = (url: string) => pool.extract({ bytes: new Uint8Array(), contentType: "text/plain", url });
    const results = await Promise.all([doc("https://a.example/hang"), doc("https://a.example/one")]);
    expect(results.map((r) => (r.ok ? "ok" : r.reason))).toEqual(["timeout", "ok"]);
    const again = await Promise.all([doc("https://a.example/crash"), doc("https://a.example/two")]);
    expect(again.map((r) => (r.ok ? "ok" : r.reason))).toEqual(["too_large", "ok"]);
  }, 60_000);
});
