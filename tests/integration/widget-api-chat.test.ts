import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/widget/[key]/chat/route";
import { usageMonth } from "@/lib/db/queries/usage";
import { packConfigs } from "@/lib/db/schema";
import { verifyVisitorToken } from "@/lib/security/visitor-token";
import { type ChatWorld, pemFile, readEvents, SITE, startChatWorld, textOf } from "../support/chat-world";
import { type FixtureSite, startFixtureSite } from "../support/fixture-site";

// A whole turn through the HTTP route handler: the real guard, the registered get_opening_status pack fetching
// from a local https site, the fake model, then the rows the turn left behind.

let w: ChatWorld;
let site: FixtureSite;
let tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;

const HOURS = {
  open: true,
  nextChange: "18:00",
  timezone: "Europe/Madrid",
  weekly: [{ day: 1, opens: "08:00", closes: "18:00" }],
  internalNotes: "staff only: the alarm code is 1234",
};

beforeAll(async () => {
  site = await startFixtureSite({ routes: { "/api/hours/": HOURS } });
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: site.host, MICHI_FETCH_EXTRA_CA: pemFile(site.caPem) });
  tenant = await w.tenant({ bot: { model: "fake-large", instructions: "Always greet with Hola." } });
  await w.db.forTenant(tenant.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: tenant.id,
      packId: "get_opening_status",
      enabled: true,
      config: { baseUrl: site.origin },
    }),
  );
  w.fake.setRules([
    {
      match: "are you open",
      steps: [
        { type: "tool_calls", calls: [{ id: "call_hours", name: "get_opening_status", arguments: "{}" }] },
        { type: "text", text: "Yes! We are open until {{tool.nextChange}}.", chunkSize: 6 },
      ],
    },
    { match: "thanks", steps: [{ type: "text", text: "You're welcome." }] },
  ]);
});

afterAll(async () => {
  await w?.close();
  await site?.close();
});

const call = (body: unknown, token: string) =>
  POST(w.chatRequest(tenant.widgetKey, body, { token }), {
    params: Promise.resolve({ key: tenant.widgetKey }),
  });

describe("a whole chat turn over HTTP", () => {
  let token: string;
  let conversationId: string;

  it("streams chips and the answer, and stores the conversation, the tool run and the usage", async () => {
    token = await w.token(tenant.widgetKey);
    const res = await call(
      { message: "  Are you open right now?  ", lang: "es-ES", pageUrl: `${SITE}/menu?email=a@b.c` },
      token,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(res.headers.get("vary")).toMatch(/Origin/);

    const events = await readEvents(res);
    expect(events.filter((e) => e.event === "chip").map((e) => e.data)).toEqual([
      { callId: "call_hours", label: "Comprobando si estamos abiertos", state: "start" },
      { callId: "call_hours", label: "Comprobando si estamos abiertos", state: "done" },
    ]);
    expect(textOf(events)).toBe("Yes! We are open until 18:00.");
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    conversationId = done.data.conversationId as string;
    // Chips never carry arguments or results.
    expect(JSON.stringify(events)).not.toMatch(/nextChange|alarm|arguments/);

    // What the model was sent: the tenant's model, max_tokens, the tools and the prompt pieces.
    const [first, second] = w.fake.requests;
    expect(first!.body.model).toBe("fake-large");
    expect(first!.body.max_tokens).toBe(800);
    expect(first!.body.stream_options).toEqual({ include_usage: true });
    expect(JSON.stringify(first!.body.tools)).toMatch(/get_opening_status/);
    const system = String(first!.body.messages[0]!.content);
    expect(system).toMatch(/Always greet with Hola\./);
    expect(system).toMatch(/call get_opening_status instead of guessing/);
    expect(first!.body.messages.at(-1)).toMatchObject({ role: "user", content: "Are you open right now?" });
    const toolMsg = second!.body.messages.at(-1)!;
    expect(toolMsg).toMatchObject({ role: "tool", tool_call_id: "call_hours" });
    expect(JSON.parse(String(toolMsg.content))).toEqual({ open: true, nextChange: "18:00" });
    expect(site.requests.map((r) => r.path)).toEqual(["/api/hours/"]);

    const rows = await w.rows(tenant.id);
    const visitor = verifyVisitorToken(process.env.MICHI_AUTH_SECRET!, token, tenant.id);
    expect(rows.conversations).toHaveLength(1);
    expect(rows.conversations[0]).toMatchObject({
      id: conversationId,
      visitorId: visitor.ok ? visitor.claims.visitorId : "?",
      origin: SITE,
      locale: "es",
      pageUrl: `${SITE}/menu`,
    });
    const [user, answer] = rows.messages;
    expect(user).toMatchObject({ role: "user", content: "Are you open right now?", status: "complete" });
    expect(answer).toMatchObject({
      id: done.data.messageId,
      role: "assistant",
      content: "Yes! We are open until 18:00.",
      status: "complete",
      reason: null,
      model: "fake-large",
    });
    expect(answer!.promptTokens).toBeGreaterThan(0);
    expect(answer!.completionTokens).toBeGreaterThan(0);

    expect(rows.toolRuns).toHaveLength(1);
    expect(rows.toolRuns[0]).toMatchObject({
      packId: "get_opening_status",
      callId: "call_hours",
      messageId: answer!.id,
      outcome: "ok",
      args: {},
      result: toolMsg.content, // exactly what the model saw
      resultChars: String(toolMsg.content).length,
    });

    expect(rows.usage).toEqual([
      {
        tenantId: tenant.id,
        month: usageMonth(),
        promptTokens: answer!.promptTokens,
        completionTokens: answer!.completionTokens,
        // Reported by the provider, so nothing was estimated.
        estimatedTokens: 0,
      },
    ]);
  });

  it("continues the conversation with its history, without re-sending earlier tool calls", async () => {
    const before = w.fake.requests.length;
    const res = await call({ conversationId, message: "Thanks!" }, token);
    const events = await readEvents(res);
    expect(textOf(events)).toBe("You're welcome.");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { conversationId } });

    const sent = w.fake.requests[before]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent[1]!.content).toBe("Are you open right now?");
    expect(sent[2]!.content).toBe("Yes! We are open until 18:00.");
    expect(sent.some((m) => m.role === "tool" || m.tool_calls)).toBe(false);

    const rows = await w.rows(tenant.id);
    expect(rows.conversations).toHaveLength(1);
    expect(rows.messages).toHaveLength(4);
    const total = rows.messages.reduce((s, m) => s + m.promptTokens + m.completionTokens, 0);
    expect(rows.usage[0]!.promptTokens + rows.usage[0]!.completionTokens).toBe(total);
  });
});
