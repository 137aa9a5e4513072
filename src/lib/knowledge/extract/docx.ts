import "server-only";
import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import yauzl from "yauzl";
import { collapse, domSections } from "./dom-sections";
import { type Deadline, type ExtractedDocument, type ExtractLimits, refusal } from "./types";

// A Word document (DOCX, a zip of XML parts) through mammoth, which maps Word's heading styles to h1–h6.
// mammoth unzips with JSZip, which inflates whatever an entry holds whatever size the archive declares, so
// the archive is first walked here with yauzl: entry count and declared sizes checked, then every entry
// inflated and counted, yauzl failing any entry that inflates past its declared size. Only an archive that
// unpacks within the limit reaches mammoth.

const MB = 1024 * 1024;

function openZip(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false },
      (err, zip) => (err || !zip ? reject(err ?? new Error("no zip")) : resolve(zip)),
    ),
  );
}

function inflatedSize(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(err ?? new Error("no stream"));
      let size = 0;
      stream.on("data", (part: Buffer) => {
        size += part.length;
        if (size > budget) stream.destroy(new Error("over budget"));
      });
      stream.on("error", reject);
      stream.on("end", () => resolve(size));
    });
  });
}

/** Refuses an archive that unpacks past the limits (a zip bomb, honest or lying about its sizes). */
export async function checkZip(buffer: Buffer, limits: ExtractLimits, clock: Deadline): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(buffer);
  } catch {
    throw refusal("unreadable", "The file is not a readable DOCX (its zip structure is damaged).");
  }
  const bomb = refusal(
    "zip_bomb",
    `The DOCX unpacks to more than ${Math.round(limits.maxUnzippedBytes / MB)} MB (a compression bomb), so it is not read.`,
  );
  if (zip.entryCount > limits.maxZipEntries) {
    zip.close();
    throw refusal(
      "zip_bomb",
      `The DOCX holds ${zip.entryCount} parts; at most ${limits.maxZipEntries} are read.`,
    );
  }
  let total = 0;
  let markup = 0;
  const tooMuchMarkup = refusal(
    "too_large",
    `The DOCX's text parts unpack to more than ${Math.round(limits.maxDocxMarkupBytes / MB)} MB, so it is not read.`,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", () => resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        try {
          clock.check("unpacking the DOCX");
        } catch (e) {
          return reject(e);
        }
        if (total + entry.uncompressedSize > limits.maxUnzippedBytes) return reject(bomb);
        if (/\/$/.test(entry.fileName)) return zip.readEntry();
        inflatedSize(zip, entry, limits.maxUnzippedBytes - total).then(
          (size) => {
            total += size;
            // The XML parts are what mammoth parses (media it never reads): they bound its time and memory.
            if (/\.(xml|rels)$/i.test(entry.fileName)) markup += size;
            if (markup > limits.maxDocxMarkupBytes) return reject(tooMuchMarkup);
            zip.readEntry();
          },
          () => reject(bomb),
        );
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

export async function extractDocx(
  bytes: Uint8Array,
  limits: ExtractLimits,
  clock: Deadline,
): Promise<Omit<ExtractedDocument, "hash" | "canonical" | "noindex" | "links" | "lang" | "navigationOnly">> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await checkZip(buffer, limits, clock);
  let html: string;
  try {
    // Images are left out of the HTML (never inflated, never base64-encoded): only text is indexed.
    const convertImage = mammoth.images.imgElement(async () => ({ src: "" }));
    html = (await mammoth.convertToHtml({ buffer }, { convertImage })).value;
  } catch {
    throw refusal("unreadable", "The file is not a readable DOCX.");
  }
  clock.check("converting the DOCX");
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const found = domSections(document.body as never, limits.maxTextChars);
  if (found.truncated) throw refusal("too_much_text", "The document holds more text than the limit allows.");
  const h1 = document.querySelector("h1");
  return { title: (h1 && collapse(h1.textContent ?? "")) || null, sections: found.sections };
}
