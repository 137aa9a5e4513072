import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { platformPacks } from "@/lib/chat/packs";
import { runTurn, type TurnDeps, type TurnInput, type TurnSink } from "@/lib/chat/run-turn";
import type { DbHandle } from "@/lib/db/client";
import { addMembership } from "@/lib/db/queries/users";
import { env } from "@/lib/env";
import { sendAgentReply } from "@/lib/live/reply";
import { claimConversation, handBackConversation } from "@/lib/live/takeover";
import type { ChatEvent } from "@/shared/chat-events";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, startChatWorld } from "../support/chat-world";

// The takeover race (issue #28): a person takes the conversation while the model is still answering. The
// answer's store (michi_finish_turn) is held at a gate until the takeover and the person's first message have
// committed, so the order is forced, not hoped for: no bot answer may follow the person's first message, and
// the visitor's stream says a person has the conversation instead of ending in `done`.

let w: ChatWorld;
let tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;
let agent: TenantContext;
const gate: { before?: () => Promise<void> } = {};

/** The test database, with a hook that runs before the turn's finishing statement. */
function gatedDb(db: DbHandle): DbHandle {
  return {
    ...db,
    async tenantCall(fn, tenantId, args) {
      if (fn === "michi_finish_turn" && gate.before) await gate.before();
      return db.tenantCall(fn, tenantId, args);
    },
  };
}

function sink(): TurnSink & { events: ChatEvent[] } {
  const events: ChatEvent[] = [];
  return { events, emit: (e) => events.push(e), signal: new AbortController().signal };
}

let deps: TurnDeps;
let n = 0;
const input = (over: Partial<TurnInput> = {}): TurnInput => ({
  tenant,
  visitorId: `visitor-${++n}`,
  message: "Can I return shoes after 30 days?",
  origin: "https://shop.example",
  pageUrl: "",
  locale: "en",
  lang: "en",
  ...over,
});

async function messagesOf(conversationId: string) {
  const rows = await w.rows(tenant.id);
  return rows.messages
    .filter((m) => m.conversationId === conversationId)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((m) => [m.role, m.content]);
}

beforeAll(async () => {
  w = await startChatWorld();
  tenant = await w.tenant();
  const user = await makeUser(w.db, "agent@shop.example", { name: "Ana" });
  await addMembership(w.db.platform, tenant.id, user.id, "admin");
  agent = {
    user: { ...user, isOperator: false, mustChangePassword: false },
    tenant,
    role: "admin",
    db: w.db,
  };
  deps = { db: gatedDb(w.db), env: env(), packs: platformPacks };
  w.fake.setRules([
    { match: "return shoes", steps: [{ type: "text", text: "Yes, within 60 days.", chunkSize: 4 }] },
    { match: "and sandals", steps: [{ type: "text", text: "Sandals too." }] },
  ]);
});

afterAll(async () => {
  await w?.close();
});

describe("a person takes over while the model answers", () => {
  it("stores no bot answer after the person's first message, and tells the visitor's stream", async () => {
    let conversationId = "";
    gate.before = async () => {
      gate.before = undefined;
      await claimConversation(agent, { conversationId });
      await sendAgentReply(agent, { conversationId, text: "Hi, Ana here: yes, bring the receipt." });
    };
    const s = sink();
    const turn = runTurn(deps, input(), {
      ...s,
      emit: (e) => {
        if (e.type === "start") conversationId = e.data.conversationId;
        s.emit(e);
      },
    });
    await turn;
    expect(await messagesOf(conversationId)).toEqual([
      ["user", "Can I return shoes after 30 days?"],
      ["agent", "Hi, Ana here: yes, bring the receipt."],
    ]);
    const kinds = s.events.map((e) => e.type);
    expect(kinds).not.toContain("done");
    expect(kinds.at(-1)).toBe("live");
    // The tokens were spent all the same.
    const usage = (await w.rows(tenant.id)).usage;
    expect(usage.reduce((sum, u) => sum + u.promptTokens + u.completionTokens, 0)).toBeGreaterThan(0);
  });

  it("keeps an answer that was stored before the takeover, which then comes first", async () => {
    const s = sink();
    const visitor = input();
    await runTurn(deps, visitor, s);
    const start = s.events[0];
    if (start?.type !== "start") throw new Error("no start");
    const { conversationId } = start.data;
    await claimConversation(agent, { conversationId });
    await sendAgentReply(agent, { conversationId, text: "Ana here." });
    expect(await messagesOf(conversationId)).toEqual([
      ["user", "Can I return shoes after 30 days?"],
      ["assistant", "Yes, within 60 days."],
      ["agent", "Ana here."],
    ]);
  });

  it("does not call the model while a person has the conversation, and again after the hand back", async () => {
    const first = sink();
    const visitor = input();
    await runTurn(deps, visitor, first);
    const start = first.events[0];
    if (start?.type !== "start") throw new Error("no start");
    const { conversationId } = start.data;
    await claimConversation(agent, { conversationId });
    const before = w.fake.requests.length;

    const during = sink();
    await runTurn(deps, { ...visitor, conversationId, message: "and sandals?" }, during);
    expect(during.events.map((e) => e.type)).toEqual(["start", "live"]);
    expect(w.fake.requests.length).toBe(before);

    await sendAgentReply(agent, { conversationId, text: "Sandals as well." });
    await handBackConversation(agent, { conversationId });
    const after = sink();
    await runTurn(deps, { ...visitor, conversationId, message: "and sandals, really?" }, after);
    expect(after.events.at(-1)?.type).toBe("done");
    const requests = w.fake.requests;
    expect(requests.length).toBe(before + 1);
    // The model's history says a person wrote the reply, so it does not offer a person again for it.
    const sent = JSON.stringify(requests.at(-1));
    expect(sent).toContain("Written by a person from the business");
    expect(sent).toContain("Sandals as well.");
  });
});
