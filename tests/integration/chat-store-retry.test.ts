import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { createDb, type DbHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import type { ToolPack } from "@/lib/tools/contract";
import { handleChat } from "@/widget/server/chat";
import type { WidgetDeps } from "@/widget/server/deps";
import { type ChatWorld, readEvents, startChatWorld, textOf } from "../support/chat-world";
import { type PgOutageProxy, startPgOutageProxy } from "../support/pg-outage-proxy";

// Issue 13 item 12: the database drops at the end of a turn, after the visitor has read the answer. The chat
// runs on a pool behind a TCP proxy that cuts every connection and refuses new ones; a test pack starts the
// outage while the turn runs, so it is in force when the answer is stored. Outages end on events the proxy
// reports (refused connections), never on a timer, so a slow machine changes nothing.

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)("the database drops at the end of a turn (Postgres behind a proxy)", () => {
  let w: ChatWorld;
  let proxy: PgOutageProxy;
  let proxied: DbHandle;

  beforeAll(async () => {
    w = await startChatWorld();
    proxy = await startPgOutageProxy(w.dbUrl!);
    proxied = await createDb({ url: proxy.url, poolMax: 2 });
  });
  afterAll(async () => {
    await proxied?.close();
    await proxy?.close();
    await w?.close();
  });
  beforeEach(() => {
    w.fake.reset();
    proxy.restore();
  });

  /** A pack that does what the test says while the turn runs (starts an outage), then answers normally. */
  const during = (what: () => void): ToolPack => ({
    id: "check_hours",
    label: "Checking the hours",
    definition: {
      type: "function",
      function: {
        name: "check_hours",
        description: "Opening hours.",
        parameters: { type: "object", properties: {} },
      },
    },
    configFields: [],
    async run() {
      what();
      return { open: true };
    },
  });

  async function turn(pack: ToolPack, over: Partial<WidgetDeps> = {}) {
    const tenant = await w.tenant();
    const token = await w.token(tenant.widgetKey);
    const message = `are you open? ${Math.random().toString(36).slice(2)}`;
    w.fake.setRules([
      {
        match: message,
        steps: [
          { type: "tool_calls", calls: [{ id: "call_1", name: "check_hours", arguments: "{}" }] },
          { type: "text", text: "Yes, we are open." },
        ],
      },
    ]);
    const deps: WidgetDeps = {
      db: async () => proxied,
      env,
      packs: {
        ...platformPacks,
        loadEnabled: async () => [{ pack, config: {}, definition: pack.definition }],
      },
      ...over,
    };
    const res = await handleChat(
      w.chatRequest(tenant.widgetKey, { message }, { token }),
      tenant.widgetKey,
      deps,
    );
    expect(res.status).toBe(200);
    const events = await readEvents(res);
    // Read directly, not through the proxy.
    return { events, rows: await w.rows(tenant.id) };
  }

  it("a short outage loses nothing: the answer is stored once the database is back, and the visitor gets done", async () => {
    let back: Promise<void> | undefined;
    const pack = during(() => {
      proxy.drop();
      // Back only after the store has been refused twice: the outage is surely met, however slow the machine.
      back = proxy.refusals(2).then(() => proxy.restore());
    });
    const { events, rows } = await turn(pack);
    // The store was refused at least twice (it kept trying) and then got through.
    expect(proxy.refused()).toBeGreaterThanOrEqual(2);
    await back;

    expect(textOf(events)).toBe("Yes, we are open.");
    const last = events.at(-1)!;
    expect(last.event).toBe("done");
    expect(events.some((e) => e.event === "error")).toBe(false);

    const answers = rows.messages.filter((m) => m.role === "assistant");
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ content: "Yes, we are open.", status: "complete" });
    expect(last.data.messageId).toBe(answers[0]!.id);
    expect(rows.toolRuns.map((r) => [r.messageId, r.outcome])).toEqual([[answers[0]!.id, "ok"]]);
    expect(rows.usage[0]!.completionTokens).toBeGreaterThan(0);
  });

  it("an outage longer than the bound: the visitor is told db_unavailable and no answer is stored", async () => {
    const pack = during(() => proxy.drop());
    const { events, rows } = await turn(pack, {
      storeRetry: { totalMs: 400, firstDelayMs: 50, maxDelayMs: 100 },
    });
    // Retried, not given up at the first failure.
    expect(proxy.refused()).toBeGreaterThanOrEqual(3);
    proxy.restore();

    expect(textOf(events)).toBe("Yes, we are open.");
    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({
      code: "db_unavailable",
      message: expect.stringMatching(/could not save/),
    });
    expect(events.some((e) => e.event === "done")).toBe(false);

    // What is stored (read around the proxy) matches what the visitor was told (their question, no answer).
    expect(rows.messages.map((m) => [m.role, m.status])).toEqual([["user", "complete"]]);
    expect(rows.toolRuns).toEqual([]);
  });

  it("a commit whose acknowledgement is lost is not stored twice", async () => {
    const pack = during(() => proxy.loseNextCommitAck());
    const { events, rows } = await turn(pack);
    expect(proxy.acksLost()).toBe(1);
    expect(events.at(-1)!.event).toBe("done");
    const answers = rows.messages.filter((m) => m.role === "assistant");
    expect(answers).toHaveLength(1);
    expect(events.at(-1)!.data.messageId).toBe(answers[0]!.id);
    expect(rows.toolRuns).toHaveLength(1);
  });
});
