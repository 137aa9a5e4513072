import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExportRow, exportBatches } from "@/lib/db/queries/insights-export";
import { createTenant } from "@/lib/db/queries/tenants";
import { conversations, messages } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { exportFilename, parseExportQuery } from "@/lib/insights/export-request";
import { CSV_COLUMNS, csvField, exportStream } from "@/lib/insights/export-stream";
import { estimateTokens } from "@/lib/tools/tokens";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

const RANGE = { from: new Date("2025-05-01T00:00:00Z"), until: new Date("2025-05-08T00:00:00Z") };
const TOTAL = 10_000;
const TRICKY = 'He said "hi", then\r\nleft; =HYPERLINK("http://evil.example")';

let t: TestDb;
let a: { id: string };
let b: { id: string };
let trickyConversation: string;

/** A strict RFC 4180 reader, enough to check what a spreadsheet program would see. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"' && field === "") {
      quoted = true;
      i++;
    } else if (ch === ",") {
      row.push(field);
      field = "";
      i++;
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i += 2;
    } else {
      if (ch === '"' || ch === "\n" || ch === "\r") throw new Error(`bare ${JSON.stringify(ch)} at ${i}`);
      field += ch;
      i++;
    }
  }
  if (field !== "" || row.length > 0) throw new Error("the last line does not end with CRLF");
  return rows;
}

/** Wraps the batch reader to count what was fetched and how big each batch was. */
function counted(source: AsyncGenerator<ExportRow[]>) {
  const stats = { fetched: 0, batches: 0, largest: 0 };
  const it: AsyncIterator<ExportRow[]> = {
    async next() {
      stats.fetched++;
      const r = await source.next();
      if (!r.done) {
        stats.batches++;
        stats.largest = Math.max(stats.largest, r.value.length);
      }
      return r;
    },
    async return() {
      return source.return(undefined);
    },
  };
  return { it, stats };
}

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "export-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "export-b", name: "B" });

  // One hand-made conversation with a tool run and a message that needs every kind of CSV care.
  trickyConversation = await addConversation(t.handle, a.id, {
    startedAt: "2025-05-01T00:00:00Z",
    locale: "ja",
    messages: [
      { role: "user", at: "2025-05-01T00:00:00Z", content: TRICKY },
      {
        role: "assistant",
        at: "2025-05-01T00:00:01Z",
        content: "-5 degrees and @home",
        prompt: 12,
        completion: 3,
        runs: [{ packId: "get_weather", result: '{"tempC":-5}', durationMs: 42 }],
      },
    ],
  });
  // The rest in bulk: 10,000 in range in total, three messages sharing each second to exercise ties.
  const convs = await t.handle.platform
    .insert(conversations)
    .values(
      Array.from({ length: 499 }, (_, i) => ({
        tenantId: a.id,
        visitorId: `v${i}`,
        startedAt: new Date("2025-05-01T01:00:00Z"),
        lastActivityAt: new Date("2025-05-07T23:00:00Z"),
      })),
    )
    .returning({ id: conversations.id });
  const base = new Date("2025-05-01T01:00:00Z").getTime();
  const rows = Array.from({ length: TOTAL - 2 }, (_, i) => ({
    tenantId: a.id,
    conversationId: convs[i % convs.length]!.id,
    role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
    content: `message number ${i}`,
    createdAt: new Date(base + Math.floor(i / 3) * 1000),
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await t.handle.platform.insert(messages).values(rows.slice(i, i + 1000));
  // Just outside the range on both ends, and another tenant inside it.
  await addConversation(t.handle, a.id, {
    startedAt: "2025-04-30T23:59:59.999Z",
    messages: [
      { role: "user", at: "2025-04-30T23:59:59.999Z", content: "too early" },
      { role: "user", at: "2025-05-08T00:00:00Z", content: "too late" },
    ],
  });
  await addConversation(t.handle, b.id, {
    startedAt: "2025-05-02T00:00:00Z",
    messages: [{ role: "user", at: "2025-05-02T00:00:00Z", content: "tenant b" }],
  });
}, 120_000);

afterAll(() => t?.close());

describe("export of 10,000 messages", () => {
  it("streams CSV batch by batch, reading ahead at most one batch", async () => {
    const { it: batches, stats } = counted(exportBatches(t.handle, a.id, RANGE, 500));
    const reader = exportStream(batches, "csv").getReader();
    // ignoreBOM keeps the byte-order mark in the text, so the test can see it was sent.
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    let text = "";
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      // Never more batches fetched than handed to the reader, plus the one waiting in the queue.
      expect(stats.fetched).toBeLessThanOrEqual(reads + 1);
      text += decoder.decode(value, { stream: true });
    }
    expect(stats.batches).toBe(TOTAL / 500);
    expect(stats.largest).toBe(500);

    expect(text.startsWith("\uFEFF")).toBe(true);
    const [header, ...lines] = parseCsv(text.slice(1));
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(lines).toHaveLength(TOTAL);
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const ids = new Set(lines.map((l) => l[col("message_id")]));
    expect(ids.size).toBe(TOTAL);
    const createdAt = lines.map((l) => l[col("created_at")]!);
    expect([...createdAt].sort()).toEqual(createdAt);
    expect(lines.some((l) => l[col("content")]?.includes("too"))).toBe(false);
    expect(lines.some((l) => l[col("content")] === "tenant b")).toBe(false);

    // The tricky message survives quoting, and its formula is defused.
    const tricky = lines.find(
      (l) => l[col("conversation_id")] === trickyConversation && l[col("role")] === "user",
    );
    expect(tricky?.[col("content")]).toBe(TRICKY);
    const answer = lines.find(
      (l) => l[col("conversation_id")] === trickyConversation && l[col("role")] === "assistant",
    );
    expect(answer?.[col("content")]).toBe("'-5 degrees and @home");
    expect(answer?.[col("tool_calls")]).toBe("get_weather:ok:42ms");
    expect(answer?.[col("prompt_tokens")]).toBe("12");
    expect(answer?.[col("locale")]).toBe("ja");
  });

  it("streams JSON as one array with the tool runs as the model saw them", async () => {
    const text = await new Response(exportStream(exportBatches(t.handle, a.id, RANGE, 700), "json")).text();
    const rows = JSON.parse(text) as ExportRow[];
    expect(rows).toHaveLength(TOTAL);
    expect(rows[0]).toMatchObject({
      conversationId: trickyConversation,
      createdAt: "2025-05-01T00:00:00.000000Z",
      role: "user",
      content: TRICKY,
      tools: [],
    });
    expect(rows[1]?.tools).toEqual([
      {
        packId: "get_weather",
        args: {},
        result: '{"tempC":-5}',
        resultChars: 12,
        resultTokens: 3,
        durationMs: 42,
        outcome: "ok",
      },
    ]);
    expect(new Set(rows.map((r) => r.messageId)).size).toBe(TOTAL);
  });

  it("stops reading from the database when the download is cancelled", async () => {
    const { it: batches, stats } = counted(exportBatches(t.handle, a.id, RANGE, 500));
    const reader = exportStream(batches, "json").getReader();
    await reader.read();
    await reader.cancel();
    expect(stats.fetched).toBeLessThanOrEqual(2);
    expect(await batches.next()).toEqual({ done: true, value: undefined });
  });
});

describe("export format details", () => {
  it("counts the tokens of a tool run stored without a count, as every turn since 2026-12-01 stores it", async () => {
    const result = '{"events":[{"title":"Jazz night","startsAt":"2026-12-05T20:00:00Z"}]}';
    const run = { packId: "fetch_json", args: {}, result, resultChars: result.length, durationMs: 9 };
    const row = {
      conversationId: "c",
      conversationStartedAt: "2026-12-01T00:00:00.000000Z",
      visitorId: "v",
      origin: "https://shop.example",
      pageUrl: "https://shop.example/",
      locale: "en",
      messageId: "m",
      createdAt: "2026-12-01T00:00:01.000000Z",
      role: "assistant",
      content: "Jazz night on Saturday.",
      status: "complete",
      reason: null,
      model: "m",
      promptTokens: 1,
      completionTokens: 1,
      tools: [
        { ...run, resultTokens: null, outcome: "ok" },
        { ...run, resultTokens: 7, outcome: "ok" },
      ],
    } satisfies ExportRow;
    async function* batches() {
      yield [row];
    }
    const [out] = JSON.parse(await new Response(exportStream(batches(), "json")).text()) as ExportRow[];
    // counted on read; a count stored by an older turn is kept as it was
    expect(out?.tools.map((t) => t.resultTokens)).toEqual([estimateTokens(result), 7]);
    expect(estimateTokens(result)).toBeGreaterThan(10);
  });

  it("an empty range gives a header only, or an empty array", async () => {
    const empty = { from: new Date("2020-01-01T00:00:00Z"), until: new Date("2020-01-02T00:00:00Z") };
    const bytes = await new Response(exportStream(exportBatches(t.handle, a.id, empty), "csv")).arrayBuffer();
    const csv = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(csv.startsWith("\uFEFF")).toBe(true);
    expect(parseCsv(csv.slice(1))).toEqual([[...CSV_COLUMNS]]);
    const json = await new Response(exportStream(exportBatches(t.handle, a.id, empty), "json")).text();
    expect(JSON.parse(json)).toEqual([]);
  });

  it("quotes fields per RFC 4180 and defuses formulas", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    for (const start of ["=", "+", "-", "@", "\t"]) expect(csvField(`${start}1+1`)).toBe(`'${start}1+1`);
    expect(csvField("=1,2")).toBe(`"'=1,2"`);
    expect(csvField(-5)).toBe("-5");
    expect(csvField(null)).toBe("");
  });

  it("reads the query string, defaulting to the last 30 days", () => {
    const now = new Date("2025-05-31T10:00:00Z");
    const q = parseExportQuery(new URL("http://x/?format=json&from=2025-05-01&to=2025-05-07"), now);
    expect(q).toEqual({ format: "json", from: "2025-05-01", to: "2025-05-07", range: RANGE });
    const d = parseExportQuery(new URL("http://x/"), now);
    expect(d).toMatchObject({ format: "csv", from: "2025-05-02", to: "2025-05-31" });
    expect(exportFilename("cafe", d)).toBe("michi-cafe-conversations-2025-05-02-to-2025-05-31.csv");
    for (const bad of ["format=xml", "from=yesterday", "from=2025-02-30", "from=2025-05-08&to=2025-05-01"])
      expect(() => parseExportQuery(new URL(`http://x/?${bad}`), now)).toThrow(AppError);
  });
});
