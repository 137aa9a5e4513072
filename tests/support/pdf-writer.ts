// Writes small, valid PDF files for the extraction tests: one Helvetica text object per page, one line per
// entry, each at its own font size (a larger size is how a PDF shows a heading). The layout follows the
// PDF 1.4 reference's minimal file (catalog, page tree, pages, content streams, cross-reference table);
// only ASCII text, which the standard fonts' WinAnsi encoding covers.

export type PdfLine = { text: string; size?: number };

function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

function pageStream(lines: PdfLine[]): string {
  const ops: string[] = ["BT", "72 740 Td"];
  let first = true;
  for (const line of lines) {
    const size = line.size ?? 11;
    if (!first) ops.push(`0 -${Math.round(size * 1.6)} Td`);
    first = false;
    ops.push(`/F1 ${size} Tf`, `(${pdfString(line.text)}) Tj`);
  }
  ops.push("ET");
  return ops.join("\n");
}

/** A PDF whose pages hold the given lines; `title` goes into the document information dictionary. */
export function writePdf(pages: PdfLine[][], opts: { title?: string } = {}): Uint8Array {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1 catalog, 2 page tree, 3 font, 4 info; then a page and its content stream per page.
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  objects[4] = `<< /Producer (michi-chat tests)${opts.title ? ` /Title (${pdfString(opts.title)})` : ""} >>`;
  let next = 5;
  for (const lines of pages) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const stream = pageStream(lines);
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`;
    objects[contentId] = `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`;
  }
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`;

  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < next; id++) {
    offsets[id] = Buffer.byteLength(out, "latin1");
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${next}\n0000000000 65535 f \n`;
  for (let id = 1; id < next; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${next} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, "latin1"));
}
