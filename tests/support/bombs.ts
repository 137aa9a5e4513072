import { createDeflate } from "node:zlib";
import { writeDocx } from "./zip-writer";

// Hostile documents made at test (and bench) time, never stored: a small PDF whose one content stream
// inflates to a gibibyte of zeros (the stream is deflated chunk by chunk, so making it never holds the
// gibibyte either), and a DOCX whose main part unpacks to tens of megabytes of repeated XML (issue 44,
// finding 2). The PDF's layout is the minimal file of the PDF 1.4 reference, as in ./pdf-writer.ts.

const MB = 1024 * 1024;

/** zlib-deflated `bytes` of zeros, made 1 MB at a time. */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  const zeros = Buffer.alloc(MB);
  for (let left = bytes; left > 0; left -= MB) {
    const chunk = left >= MB ? zeros : zeros.subarray(0, left);
    if (!deflate.write(chunk)) await new Promise((r) => deflate.once("drain", r));
  }
  deflate.end();
  await done;
  return Buffer.concat(parts);
}

/** A one-page PDF whose content stream (FlateDecode, once or `layers` times) inflates to `inflated` bytes. */
export async function pdfBomb(opts: { inflated?: number; layers?: 1 | 2 } = {}): Promise<Uint8Array> {
  let stream = await deflatedZeros(opts.inflated ?? 1024 * MB);
  let filter = "/FlateDecode";
  if (opts.layers === 2) {
    // The outer layer is small to inflate: the bomb is in the second.
    const outer = createDeflate();
    const parts: Buffer[] = [];
    outer.on("data", (c: Buffer) => parts.push(c));
    const done = new Promise((r) => outer.on("end", r));
    outer.end(stream);
    await done;
    stream = Buffer.concat(parts);
    filter = "[/FlateDecode /FlateDecode]";
  }
  return pdfWithStream(`/Length ${stream.length} /Filter ${filter}`, stream);
}

/** A one-page PDF whose content stream is `data` as given, under a dictionary holding `entries`. */
export function pdfWithStream(entries: string, data: Buffer): Uint8Array {
  const head = Buffer.from(
    "%PDF-1.4\n" +
      "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
      "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
      "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n" +
      `4 0 obj\n<< ${entries} >>\nstream\n`,
    "latin1",
  );
  const body = Buffer.concat([head, data, Buffer.from("\nendstream\nendobj\n", "latin1")]);
  const offsets = [9];
  for (const id of [2, 3, 4]) offsets.push(body.indexOf(`${id} 0 obj`, 0, "latin1"));
  const xref = `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  const tail = `${xref}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${body.length}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([body, Buffer.from(tail, "latin1")]));
}

/** A DOCX whose word/document.xml unpacks to about `markupBytes` of one paragraph repeated. */
export function docxBomb(markupBytes = 28 * MB): Buffer {
  const paragraph = "Our opening hours change in winter; ask at the counter. ";
  const count = Math.ceil(markupBytes / (paragraph.length + 60));
  return writeDocx(Array.from({ length: count }, () => ({ text: paragraph })));
}
