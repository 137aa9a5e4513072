import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { platformPacks } from "@/lib/chat/packs";
import { requestAutoTestRun } from "@/lib/db/queries/test-questions";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, messages, testRuns, usageMonthly } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import type { JobQueue } from "@/lib/queue";
import { createWebhookPoster } from "@/lib/security/webhook-post";
import { runTestQuestionsNow, sweepTestRuns, testRunWorkers } from "@/lib/test-questions/jobs";
import { addTestQuestion } from "@/lib/test-questions/manage";
import type { RunDeps } from "@/lib/test-questions/run";
import { loadTestRunView } from "@/lib/test-questions/views";
import type { ToolPack } from "@/lib/tools/contract";
import type { KnowledgeFindings, KnowledgeSearcher } from "@/lib/tools/knowledge-search";
import type { EnabledPack } from "@/lib/tools/runtime";
import { createWebhookEndpoint } from "@/lib/webhooks/endpoints";
import { installWebhookQueue, startWebhookQueue } from "@/lib/webhooks/worker";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, startChatWorld } from "../support/chat-world";
import type { Step } from "../support/fake-model";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { TEST_POLICY } from "../support/webhooks";

// Runs of a business's test questions (issue 42) on the durable queue, with the scripted model: each question
// goes through the real turn and is judged; the turn leaves no conversation and no visitor usage behind; a
// question that passed and now fails mails the owners once and sends a signed test_run.completed; without a
// model the knowledge search alone answers; one run at a time per business; a run whose process died is
// resumed where it stopped.

let w: ChatWorld;
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let queue: JobQueue;
let n = 0;

const PRICES = "https://shop.example/prices";
const passage = "Haircut: 25,00 EUR. Open 09:00–18:00.";
const search: ToolPack = {
  id: "search_knowledge",
  label: "Searching",
  definition: {
    type: "function",
    function: {
      name: "search_knowledge",
      description: "search (test)",
      parameters: { type: "object", properties: {} },
    },
  },
  configFields: [],
  run: async () => ({ found: true, passages: [{ n: 1, title: "Prices", url: PRICES, text: passage }] }),
};
const enabled: EnabledPack[] = [{ pack: search, config: {}, definition: search.definition }];

let searches = 0;
let failSearchAfter = Infinity;
const searcher: KnowledgeSearcher = async (_t, queries): Promise<KnowledgeFindings> => {
  searches += 1;
  if (searches > failSearchAfter) throw new Error("the process died");
  const hit = /haircut/i.test(queries[0] ?? "");
  return {
    curated: null,
    passages: hit
      ? [{ title: "Prices", url: PRICES, section: "", text: passage, strength: "strong" as const }]
      : [],
  };
};

function deps(e = env()): RunDeps {
  return {
    db: w.db,
    turn: { db: w.db, env: e, packs: { ...platformPacks, loadEnabled: async () => enabled } },
    search: searcher,
    log: log(),
  };
}
const noModel = () =>
  ({ ...env(), OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, MICHI_MODELS: [] }) as ReturnType<
    typeof env
  >;
let runDeps: () => RunDeps = () => deps();

async function business(): Promise<TenantContext> {
  n++;
  const tenant = await w.tenant();
  const user = await makeUser(w.db, `owner${n}@tests.test`);
  await addMembership(w.db.platform, tenant.id, user.id, "owner");
  return {
    db: w.db,
    tenant,
    role: "owner",
    user: { id: user.id, email: user.email, name: "Olga", isOperator: false, mustChangePassword: false },
  };
}

const call: Step = { type: "tool_calls", calls: [{ id: "c1", name: "search_knowledge", arguments: "{}" }] };

async function runToEnd(ctx: TenantContext, e = env()) {
  const { runId } = await runTestQuestionsNow(ctx, { queue, env: e });
  await expect
    .poll(
      async () => (await w.db.platform.select().from(testRuns).where(eq(testRuns.id, runId)))[0]?.status,
      {
        timeout: 20_000,
      },
    )
    .toBe("done");
  return (await loadTestRunView(ctx, runId))!;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startWebhookReceiver();
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: receiver.host, MICHI_SMTP_URL: smtp.url });
  const poster = createWebhookPoster({
    allowHosts: [receiver.host],
    extraCaPem: receiver.caPem,
    timeoutMs: 5000,
  });
  const q = await startWebhookQueue(w.db, {
    pollingIntervalSeconds: 0.5,
    policies: { "webhook-delivery": TEST_POLICY },
    deps: { poster },
    extraWorkers: testRunWorkers(() => runDeps()),
  });
  queue = {
    ...q,
    async stop() {
      await q.stop();
      await poster.close();
    },
  };
  installWebhookQueue(queue);
}, 60_000);

afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await w?.close();
  await receiver?.close();
  await smtp?.close();
});

describe("a run with a model", () => {
  it("asks each question through the real turn, judges it, and leaves no visitor trace or usage", async () => {
    const ctx = await business();
    await addTestQuestion(ctx, {
      question: "How much is a haircut?",
      citeUrl: PRICES,
      mustContain: "€25",
      noUnsupportedFigures: "on",
    });
    await addTestQuestion(ctx, { question: "Do you sell bikes?", sayUnknown: "on" });
    w.fake.setRules([
      {
        match: "haircut",
        steps: [call, { type: "text", text: "A haircut costs 25 € [1], or 30 € on Saturdays." }],
      },
      { match: "bikes", steps: [{ type: "text", text: "Bikes, yes: from 300 €." }] },
    ]);
    const view = await runToEnd(ctx);
    const [hair, bikes] = ["How much is a haircut?", "Do you sell bikes?"].map(
      (q) => view.results.find((r) => r.question === q)!,
    );
    expect(hair).toMatchObject({
      pass: false,
      citations: [{ n: 1, title: "Prices", url: PRICES }],
      packs: ["search_knowledge"],
    });
    expect(hair!.reasons).toEqual(["It states “30 €”, which none of its sources states."]);
    expect(bikes).toMatchObject({
      pass: false,
      reasons: ["It did not say it does not know, nor offer a person."],
    });
    expect(view.run).toMatchObject({ mode: "model", total: 2, passed: 0, failed: 2, triggers: ["manual"] });
    expect(view.run.tokens).toBeGreaterThan(0);
    // No conversation, message or month's usage of the business comes from the run.
    expect(
      await w.db.platform.select().from(conversations).where(eq(conversations.tenantId, ctx.tenant.id)),
    ).toEqual([]);
    expect(await w.db.platform.select().from(messages).where(eq(messages.tenantId, ctx.tenant.id))).toEqual(
      [],
    );
    const usage = await w.db.platform
      .select()
      .from(usageMonthly)
      .where(eq(usageMonthly.tenantId, ctx.tenant.id));
    expect(usage.reduce((s, u) => s + u.promptTokens + u.completionTokens, 0)).toBe(0);
  });

  it("says what changed since the last run; a question that now fails mails the owners once and sends test_run.completed", async () => {
    const ctx = await business();
    const secret = (
      await createWebhookEndpoint(ctx, {
        url: receiver.url(`/hook-${n}`),
        description: "CI",
        events: ["test_run.completed"],
      })
    ).secret;
    await addTestQuestion(ctx, { question: "What does a haircut cost?", mustContain: "25 €" });
    await addTestQuestion(ctx, { question: "When do you open?", mustContain: "9 am" });
    w.fake.setRules([
      { match: "haircut cost", steps: [call, { type: "text", text: "25 € [1]." }] },
      { match: "open", steps: [call, { type: "text", text: "From 9:00 [1]." }] },
    ]);
    const first = await runToEnd(ctx);
    expect(first.run).toMatchObject({ passed: 2, changed: 0, nowFailing: 0 });
    w.fake.setRules([
      { match: "haircut cost", steps: [call, { type: "text", text: "28 € now [1]." }] },
      { match: "open", steps: [call, { type: "text", text: "From 9:00 [1]." }] },
    ]);
    const second = await runToEnd(ctx);
    expect(second.run).toMatchObject({ passed: 1, failed: 1, changed: 1, nowFailing: 1 });
    expect(second.results[0]).toMatchObject({
      question: "What does a haircut cost?",
      pass: false,
      wasPass: true,
      changes: ["answer", "verdict"],
      reasons: ["It does not contain “25 €”."],
    });
    const to = ctx.user.email;
    await expect
      .poll(() => smtp.received.filter((m) => m.envelope.to.includes(to)).length, { timeout: 15_000 })
      .toBe(1);
    const mail = smtp.received.find((m) => m.envelope.to.includes(to))!;
    expect(mail.subject).toContain("a test question now fails");
    expect(mail.text).toContain("1 answer changed, 1 now fails");
    expect(mail.text).toContain("What does a haircut cost?");
    const hooks = () => receiver.received.filter((h) => h.path === `/hook-${n}`);
    await expect.poll(() => hooks().length, { timeout: 15_000 }).toBe(2);
    const events = hooks().map((h) => {
      const headers = Object.fromEntries(Object.entries(h.headers).map(([k, v]) => [k, String(v)]));
      return new Webhook(secret).verify(h.body, headers) as {
        type: string;
        data: { run: Record<string, unknown> };
      };
    });
    const last = events.find((e) => e.data.run.id === second.run.id)!;
    expect(last.type).toBe("test_run.completed");
    expect(last.data.run).toMatchObject({
      nowFailing: 1,
      changed: 1,
      headline: "1 answer changed, 1 now fails",
    });
  });
});

describe("a run without a model", () => {
  it("checks retrieval alone: the pages the search finds are the citations", async () => {
    runDeps = () => deps(noModel());
    try {
      const ctx = await business();
      await addTestQuestion(ctx, { question: "Haircut price?", citeUrl: PRICES, mustContain: "25 EUR" });
      await addTestQuestion(ctx, { question: "Do you repair shoes?", sayUnknown: "on" });
      const calls = w.fake.requests.length;
      const view = await runToEnd(ctx, noModel());
      expect(view.run).toMatchObject({ mode: "retrieval", passed: 2, failed: 0, tokens: 0 });
      expect(w.fake.requests.length).toBe(calls);
    } finally {
      runDeps = () => deps();
    }
  });
});

const runsOf = (tenantId: string) =>
  w.db.platform.select().from(testRuns).where(eq(testRuns.tenantId, tenantId));

describe("one run at a time per business", () => {
  it("a second Run now waits for the first, and the sweep starts it only after", async () => {
    const ctx = await business();
    await addTestQuestion(ctx, { question: "Slow question?" });
    w.fake.setRules([
      { match: "Slow question", steps: [{ type: "slow_text", text: "a b c d e f", chunkDelayMs: 300 }] },
    ]);
    const first = await runTestQuestionsNow(ctx, { queue, env: env() });
    const second = await runTestQuestionsNow(ctx, { queue, env: env() });
    expect(first.started).toBe(true);
    expect(second).toMatchObject({ started: false });
    expect(second.runId).not.toBe(first.runId);
    await sweepTestRuns(w.db, queue, env());
    expect((await runsOf(ctx.tenant.id)).map((r) => r.status).sort()).toEqual(["pending", "running"]);
    await expect
      .poll(async () => (await runsOf(ctx.tenant.id)).find((r) => r.id === first.runId)?.status, {
        timeout: 20_000,
      })
      .toBe("done");
    await sweepTestRuns(w.db, queue, env());
    await expect
      .poll(async () => (await runsOf(ctx.tenant.id)).find((r) => r.id === second.runId)?.status, {
        timeout: 20_000,
      })
      .toBe("done");
    const [a, b] = [first.runId, second.runId].map((id) =>
      runsOf(ctx.tenant.id).then((rs) => rs.find((r) => r.id === id)!),
    );
    // Never side by side: the second started after the first finished.
    expect((await b)!.startedAt!.getTime()).toBeGreaterThanOrEqual((await a)!.finishedAt!.getTime());
  });
});

describe("a run whose process died", () => {
  it("is resumed by the sweep where it stopped: answered questions are not asked again", async () => {
    runDeps = () => deps(noModel());
    try {
      const ctx = await business();
      for (const q of ["Haircut one?", "Haircut two?", "Haircut three?"])
        await addTestQuestion(ctx, { question: q });
      const before = searches;
      failSearchAfter = before + 1;
      const { runId } = await runTestQuestionsNow(ctx, { queue, env: noModel() });
      await expect.poll(() => searches, { timeout: 15_000 }).toBe(before + 2);
      const [stopped] = await runsOf(ctx.tenant.id);
      expect(stopped).toMatchObject({ status: "running", attempts: 1 });
      // The process is gone: its lease runs out, and the sweep hands the run to a new job.
      failSearchAfter = Infinity;
      await w.db.platform
        .update(testRuns)
        .set({ leaseUntil: new Date(Date.now() - 1000) })
        .where(eq(testRuns.id, runId));
      await sweepTestRuns(w.db, queue, noModel());
      await expect
        .poll(async () => (await runsOf(ctx.tenant.id))[0]?.status, { timeout: 20_000 })
        .toBe("done");
      const view = (await loadTestRunView(ctx, runId))!;
      expect(view.results.map((r) => r.question).sort()).toEqual([
        "Haircut one?",
        "Haircut three?",
        "Haircut two?",
      ]);
      expect(view.run).toMatchObject({ attempts: 2, total: 3 });
      // One search for the first question, the failed one, then the two that were left.
      expect(searches).toBe(before + 4);
    } finally {
      runDeps = () => deps();
      failSearchAfter = Infinity;
    }
  });
});

describe("automatic runs after a change", () => {
  it("a burst of changes is one waiting run that waits out the delay; a business without questions gets none", async () => {
    const ctx = await business();
    await addTestQuestion(ctx, { question: "Anything?" });
    for (const t of ["knowledge", "bot", "knowledge", "packs"] as const)
      await w.db.forTenant(ctx.tenant.id, (tx) => requestAutoTestRun(tx, ctx.tenant.id, t));
    const runs = await runsOf(ctx.tenant.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "pending", triggers: ["knowledge", "bot", "packs"] });
    expect(runs[0]!.startAfter.getTime()).toBeGreaterThan(Date.now() + 30_000);
    await sweepTestRuns(w.db, queue, env());
    expect((await runsOf(ctx.tenant.id))[0]!.status).toBe("pending");

    const empty = await business();
    await w.db.forTenant(empty.tenant.id, (tx) => requestAutoTestRun(tx, empty.tenant.id, "model"));
    expect(await runsOf(empty.tenant.id)).toEqual([]);
  });
});
