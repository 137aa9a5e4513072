import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { extractDocument } from "@/lib/knowledge/extract";
import { pdfBomb, pdfWithStream } from "../support/bombs";
import { writePdf } from "../support/pdf-writer";

// A PDF's compressed streams are measured before PDF.js inflates them (issue 44, finding 2): however the
// stream's filters are spelled or wrapped, one that decodes past its cap is refused as a compression bomb,
// and an honest PDF is read as before. Small caps keep the files small; the 1 GiB bomb is in
// tests/integration/knowledge-bombs.test.ts.

const MB = 1024 * 1024;
const limits = { maxPdfStreamBytes: 1 * MB, maxPdfStreamsBytes: 3 * MB };
const read = (bytes: Uint8Array) =>
  extractDocument({ bytes, contentType: "application/pdf", url: "https://a.example/f.pdf", limits });
const text = (words: number) => Buffer.from(`BT /F1 12 Tf 72 700 Td (${"coffee ".repeat(words)}) Tj ET`);
const ascii85 = (data: Buffer) => {
  let out = "";
  for (let i = 0; i < data.length; i += 4) {
    const group = Buffer.alloc(4);
    data.copy(group, 0, i, i + 4);
    let v = group.readUInt32BE(0);
    const n = Math.min(4, data.length - i);
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(33 + (v % 85)));
      v = Math.floor(v / 85);
    }
    out += digits.slice(0, n + 1).join("");
  }
  return Buffer.from(`${out}~>`, "latin1");
};

describe("PDF compression bombs", () => {
  it("refuses a stream that inflates past the cap, however its filter is written", async () => {
    const big = deflateSync(Buffer.alloc(2 * MB));
    const twice = deflateSync(big);
    const spellings: [string, Buffer][] = [
      [`/Length ${big.length} /Filter /FlateDecode`, big],
      [`/Length ${big.length} /Filter /Fl`, big],
      [`/Length ${big.length} /Filter /Fl#61teDecode`, big],
      [`/Filter [/FlateDecode /FlateDecode] /Length ${twice.length}`, twice],
      [`/Length ${big.length} /Filter [/ASCII85Decode /FlateDecode]`, ascii85(big)],
      // A string that looks like another object's start, or another filter, hides nothing.
      [`/Filter /FlateDecode /Note (7 0 obj << /Filter /DCTDecode >>) /Length ${big.length}`, big],
      [`/Length ${big.length} /Filter 9 0 R`, big],
    ];
    for (const [entries, data] of spellings) {
      const result = await read(pdfWithStream(entries, data));
      expect(result, entries).toMatchObject({ ok: false, reason: "zip_bomb" });
      if (!result.ok) expect(result.message).toContain("compression bomb");
    }
  });

  it("refuses a run-length stream that expands past the cap", async () => {
    const runs = Buffer.alloc(2 * 20_000);
    for (let i = 0; i < runs.length; i += 2) runs[i] = 129; // 128 copies of the next byte
    const result = await read(pdfWithStream("/Filter /RunLengthDecode", runs));
    expect(result).toMatchObject({ ok: false, reason: "zip_bomb" });
  });

  it("refuses many streams that together pass the total", async () => {
    const part = deflateSync(Buffer.alloc(MB - 1024));
    const objects = Array.from(
      { length: 4 },
      (_, i) => `${10 + i} 0 obj\n<< /Length ${part.length} /Filter /FlateDecode >>\nstream\n`,
    );
    const pieces: Buffer[] = [Buffer.from(writePdf([[{ text: "Menu" }]]))];
    for (const o of objects)
      pieces.push(Buffer.from(o, "latin1"), part, Buffer.from("\nendstream\nendobj\n"));
    const result = await read(new Uint8Array(Buffer.concat(pieces)));
    expect(result).toMatchObject({ ok: false, reason: "zip_bomb" });
    if (!result.ok) expect(result.message).toContain("in all");
  });

  it("reads an honest compressed PDF as before", async () => {
    const content = text(50);
    const z = deflateSync(content);
    const result = await read(pdfWithStream(`/Length ${z.length} /Filter /FlateDecode`, z));
    expect(result).toMatchObject({ ok: true });
    expect(
      await read(writePdf([[{ text: "Opening hours", size: 20 }, { text: "Every day from 8 to 18." }]])),
    ).toMatchObject({ ok: true });
  });

  it("refuses the 1 MB file whose stream inflates to 1 GiB under the default caps", async () => {
    const bytes = await pdfBomb();
    expect(bytes.byteLength).toBeLessThan(1.1 * MB);
    const result = await extractDocument({
      bytes,
      contentType: "application/pdf",
      url: "https://a.example/b.pdf",
    });
    expect(result).toEqual({
      ok: false,
      reason: "zip_bomb",
      message:
        "The PDF holds a stream that unpacks to more than 16 MB (a compression bomb), so it is not read.",
    });
  }, 30_000);
});
