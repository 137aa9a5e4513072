import { describe, expect, it } from "vitest";
import {
  type Chunk,
  type ChunkOptions,
  chunkHash,
  chunkSections,
  questionText,
  type Section,
  searchText,
} from "@/lib/knowledge/extract";

describe("chunkSections", () => {
  it("gives every section its own chunks with its heading path, and short sections one chunk each", () => {
    const chunks = chunkSections([
      { headingPath: ["Hours"], text: "Open daily." },
      { headingPath: ["Hours", "Holidays"], text: "Closed on 25 December." },
    ]);
    expect(chunks.map((c) => [c.index, c.headingPath, c.text])).toEqual([
      [0, ["Hours"], "Open daily."],
      [1, ["Hours", "Holidays"], "Closed on 25 December."],
    ]);
  });

  it("cuts a long section between paragraphs, then sentences, each next piece starting with the end of the one before", () => {
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i} says something useful about parking near the venue. It has two sentences.`,
    );
    const longSentence = `${"word ".repeat(400)}end.`;
    const opts: ChunkOptions = { maxChars: 300, overlapChars: 60 };
    const section: Section = { headingPath: ["Parking"], text: [...paragraphs, longSentence].join("\n") };
    const chunks: Chunk[] = chunkSections([section], opts);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.headingPath).toEqual(["Parking"]);
      expect(c.text.length).toBeLessThanOrEqual(300 + 60 + 1);
    }
    for (const p of paragraphs) expect(chunks.some((c) => c.text.includes(p))).toBe(true);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]?.text ?? "";
      const head = chunks[i]?.text.split("\n")[0] ?? "";
      expect(prev.endsWith(head), `chunk ${i} starts with the end of chunk ${i - 1}`).toBe(true);
    }
  });

  it("hashes a chunk by its heading path and text, so only a changed chunk gets a new hash", () => {
    const before = chunkSections([
      { headingPath: ["A"], text: "Same text." },
      { headingPath: ["B"], text: "Old text." },
    ]);
    const after = chunkSections([
      { headingPath: ["A"], text: "Same text." },
      { headingPath: ["B"], text: "New text." },
    ]);
    expect(after[0]?.hash).toBe(before[0]?.hash);
    expect(after[1]?.hash).not.toBe(before[1]?.hash);
    const moved = chunkSections([{ headingPath: ["C"], text: "Same text." }]);
    expect(moved[0]?.hash).not.toBe(before[0]?.hash);
    expect(before[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
    // The stored heading path and text are enough to recompute the hash (the index checks itself with it).
    for (const c of [...before, ...after]) expect(chunkHash(c.headingPath, c.text)).toBe(c.hash);
  });
});

describe("searchText", () => {
  it("puts spaces between Japanese words and leaves the rest of the text as it is", () => {
    expect(searchText("駐車場は地下にあります", "ja")).toBe("駐車 場 は 地下 に あり ます");
    expect(searchText("営業時間は9時から", null)).toBe("営業 時間 は 9 時 から");
    expect(searchText("Opening hours: 9–17, café", "fr")).toBe("Opening hours: 9–17, café");
    expect(searchText("Login.govの使い方", "ja")).toBe("Login.gov の 使い方");
  });

  it("splits the query like the indexed text, so a word of a sentence is a word of the query", () => {
    const indexed = searchText("アカウントを削除する方法", "ja").split(" ");
    const query = searchText("アカウント削除", "ja").split(" ");
    for (const word of query) expect(indexed).toContain(word);
  });
});

describe("questionText", () => {
  it("leaves Japanese particles and polite endings out of a question, and keeps the words asked about", () => {
    expect(questionText("営業時間を教えてください", "ja")).toBe("営業 時間 教え");
    expect(questionText("駐車場はありますか", "ja")).toBe("駐車 場");
    // A longer hiragana word is content ("おにぎり"), kept; page text keeps every word.
    expect(questionText("おにぎりの値段", "ja")).toBe("おにぎり 値段");
    expect(searchText("営業時間を教えてください", "ja")).toBe("営業 時間 を 教え て くだ さい");
  });

  it("keeps a question made of function words only, and leaves other languages as they are", () => {
    expect(questionText("どこですか", "ja").length).toBeGreaterThan(0);
    expect(questionText("Where do I park?", "en")).toBe("Where do I park?");
  });
});
