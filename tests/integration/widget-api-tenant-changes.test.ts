import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ChatWorld, errorOf, readEvents, startChatWorld, textOf } from "../support/chat-world";

// The chat endpoint remembers the tenant row it read for a widget key, so a turn does not read it again
// before it opens; the statement that opens the turn confirms the row is still current
// (michi_open_turn_as_seen). These tests change a tenant behind the endpoint's back, as another instance or
// an operator's SQL would, and check that the very next turn obeys the change and that a refused turn leaves
// nothing behind.

let w: ChatWorld;
beforeAll(async () => {
  w = await startChatWorld();
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

const chat = (...a: Parameters<ChatWorld["chat"]>) => w.chat(...a);

/** A tenant with one answered turn behind it, so the endpoint holds its row. */
async function warmTenant(opts: Parameters<ChatWorld["tenant"]>[0] = {}) {
  const t = await w.tenant(opts);
  const token = await w.token(t.widgetKey);
  const res = await chat(t.widgetKey, { message: "first" }, { token });
  expect(res.status).toBe(200);
  await readEvents(res);
  return { t, token };
}

const update = (q: ReturnType<typeof sql>) => w.db.platform.execute(q);
const contents = async (tenantId: string) => (await w.rows(tenantId)).messages.map((m) => m.content);

describe("a tenant changed between two turns", () => {
  it("suspended: the next turn is refused, with CORS headers, and nothing of it is stored", async () => {
    const { t, token } = await warmTenant();
    await update(sql`update tenants set status = 'suspended' where id = ${t.id}`);
    const res = await chat(t.widgetKey, { message: "after the suspension" }, { token });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect((await errorOf(res)).code).toBe("tenant_suspended");
    expect(await contents(t.id)).not.toContain("after the suspension");
  });

  it("a site removed: refused at once; a site added: allowed at once", async () => {
    const { t, token } = await warmTenant({ siteDomains: ["shop.example"] });
    await update(sql`update tenants set site_domains = '{"new.example"}' where id = ${t.id}`);
    const old = await chat(t.widgetKey, { message: "from the old site" }, { token });
    expect(old.status).toBe(403);
    expect((await errorOf(old)).code).toBe("origin_not_allowed");

    const fromNew = await w.token(t.widgetKey, "https://new.example");
    await update(sql`update tenants set site_domains = '{"new.example","shop.example"}' where id = ${t.id}`);
    const back = await chat(t.widgetKey, { message: "from the old site again" }, { token });
    expect(back.status).toBe(200);
    await readEvents(back);
    const other = await chat(
      t.widgetKey,
      { message: "from the new site" },
      { token: fromNew, origin: "https://new.example" },
    );
    expect(other.status).toBe(200);
    await readEvents(other);
    expect(await contents(t.id)).toEqual(
      expect.arrayContaining(["from the old site again", "from the new site"]),
    );
    expect(await contents(t.id)).not.toContain("from the old site");
  });

  it("new instructions: the very next model request carries them", async () => {
    const { t, token } = await warmTenant({ bot: { instructions: "Answer like a pirate." } });
    await update(
      sql`update tenants set bot = jsonb_set(bot, '{instructions}', '"Answer like a librarian."') where id = ${t.id}`,
    );
    w.fake.reset();
    const res = await chat(t.widgetKey, { message: "hello again" }, { token });
    expect(res.status).toBe(200);
    await readEvents(res);
    const system = JSON.stringify(w.fake.requests.at(-1)?.body.messages[0]);
    expect(system).toContain("Answer like a librarian.");
    expect(system).not.toContain("pirate");
  });

  it("a lower per-visitor limit applies to the next turns, and a refused one stores nothing", async () => {
    const { t, token } = await warmTenant({ rateLimits: { visitorPerMin: 100 } });
    await update(sql`update tenants set rate_limits = '{"visitorPerMin": 2}' where id = ${t.id}`);
    // Under the old limit all three would pass. (Postgres counts on from the first turn; the in-memory
    // store starts a new count for a new limit, so which one is refused depends on the store.)
    const refused: string[] = [];
    for (const m of ["second", "third", "fourth"]) {
      const res = await chat(t.widgetKey, { message: m }, { token });
      if (res.status === 429) refused.push(m);
      else await readEvents(res);
    }
    expect(refused.length).toBeGreaterThan(0);
    const stored = await contents(t.id);
    for (const m of refused) expect(stored).not.toContain(m);
  });

  it("the budget spent or the key rotated: refused, nothing stored", async () => {
    const { t, token } = await warmTenant();
    await update(sql`update tenants set monthly_token_budget = 1 where id = ${t.id}`);
    const spent = await chat(t.widgetKey, { message: "over budget" }, { token });
    expect(spent.status).toBe(429);
    expect((await errorOf(spent)).code).toBe("budget_exhausted");

    await update(
      sql`update tenants set monthly_token_budget = null, widget_key = ${`${t.widgetKey}x`} where id = ${t.id}`,
    );
    const rotated = await chat(t.widgetKey, { message: "with the old key" }, { token });
    expect(rotated.status).toBe(404);
    // As for any unknown key: the remembered row's allowed origin is not vouched for any more.
    expect(rotated.headers.get("access-control-allow-origin")).toBeNull();
    const stored = await contents(t.id);
    expect(stored).not.toContain("over budget");
    expect(stored).not.toContain("with the old key");
  });

  it("an unchanged tenant keeps answering, turn after turn", async () => {
    const { t, token } = await warmTenant();
    for (const m of ["two", "three"]) {
      const res = await chat(t.widgetKey, { message: m }, { token });
      expect(res.status).toBe(200);
      expect(textOf(await readEvents(res))).not.toBe("");
    }
    expect(await contents(t.id)).toEqual(expect.arrayContaining(["first", "two", "three"]));
  });
});
