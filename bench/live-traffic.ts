// The live bench's person-handled traffic (bench/live.ts): messages appended at a fixed rate, alternately a
// visitor's (timed until the business's console stream has it) and an agent's reply (timed until that
// visitor's stream has it), each to a random conversation; and the bookkeeping that checks every one arrived
// once and in seq order.
import { randomUUID } from "node:crypto";
import type { Db } from "../src/lib/db/client";
import { createTenant } from "../src/lib/db/queries/tenants";
import { conversations } from "../src/lib/db/schema";
import { signVisitorToken } from "../src/lib/security/visitor-token";
import { sleep } from "./lib/procs";
import { type Summary, summarize } from "./lib/stats";
import { type Host, post } from "./live-client";

export type Conv = { tenantId: string; key: string; id: string; token: string };
export type Delivery = {
  visitorToAgent: Summary;
  agentToVisitor: Summary;
  sent: number;
  lost: number;
  /** Appends the instance refused (an overloaded pool times out): counted among the lost, never a crash. */
  refused: number;
  duplicates: number;
  outOfOrder: number;
};
type LiveEvent = { seq: number; kind: string; data: { messageId?: string } };

export function liveTraffic(convs: Conv[], opts: { seconds: number; perSecond: number }) {
  // By messageId, the send time and how often it arrived; seq order per stream.
  const sentAt = new Map<string, { t: number; dir: "v2a" | "a2v" }>();
  const arrivals = new Map<string, number>();
  const lat = { v2a: [] as number[], a2v: [] as number[] };
  let outOfOrder = 0;

  /** A held stream's event handler: counts the events of `kind` that the traffic sent. */
  const arrive = (kind: "visitor_message" | "agent_message") => {
    let last = 0;
    return (e: LiveEvent) => {
      if (e.seq <= last) outOfOrder++;
      last = e.seq;
      const id = e.data.messageId;
      const s = id ? sentAt.get(id) : undefined;
      if (!s || e.kind !== kind) return;
      const count = (arrivals.get(id!) ?? 0) + 1;
      arrivals.set(id!, count);
      if (count === 1) lat[s.dir].push(performance.now() - s.t);
    };
  };

  const run = async (visitorHost: Host, agentHost: Host): Promise<Delivery> => {
    sentAt.clear();
    arrivals.clear();
    lat.v2a.length = 0;
    lat.a2v.length = 0;
    outOfOrder = 0;
    const sends: Promise<void>[] = [];
    let refused = 0;
    const total = opts.seconds * opts.perSecond;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / opts.perSecond - performance.now();
      if (wait > 0) await sleep(wait);
      const c = convs[Math.floor(Math.random() * convs.length)]!;
      const messageId = randomUUID();
      const dir = i % 2 === 0 ? "v2a" : "a2v";
      sentAt.set(messageId, { t: performance.now(), dir });
      sends.push(
        (dir === "v2a"
          ? post(`${visitorHost.url}/bench/append`, {
              tenantId: c.tenantId,
              conversationId: c.id,
              kind: "visitor_message",
              data: { messageId, text: "Is anyone there?" },
            })
          : post(`${agentHost.url}/bench/append`, {
              tenantId: c.tenantId,
              conversationId: c.id,
              kind: "agent_message",
              data: {
                messageId,
                text: "Yes, Ana here. How can I help?",
                agent: { id: "bench-agent", name: "Ana" },
              },
            })
        ).catch(() => {
          refused++;
        }),
      );
    }
    await Promise.all(sends);
    const settle = performance.now() + 5000;
    while (arrivals.size < total && performance.now() < settle) await sleep(50);
    const dup = [...arrivals.values()].filter((x) => x > 1).length;
    return {
      visitorToAgent: summarize(lat.v2a),
      agentToVisitor: summarize(lat.a2v),
      sent: total,
      lost: total - arrivals.size,
      refused,
      duplicates: dup,
      outOfOrder,
    };
  };

  return { arrive, run };
}

/** `businesses` tenants with n / businesses conversations each, and a visitor token for every conversation. */
export async function seedLive(
  platform: Db,
  opts: { n: number; businesses: number; secret: string },
): Promise<{ convs: Conv[]; consoles: string[] }> {
  const convs: Conv[] = [];
  const consoles: string[] = [];
  for (let b = 0; b < opts.businesses; b++) {
    const t = await createTenant(platform, { slug: `live-${b}`, name: `Live ${b}`, siteDomains: [] });
    consoles.push(t.id);
    const rows = await platform
      .insert(conversations)
      .values(
        Array.from({ length: opts.n / opts.businesses }, (_, i) => ({
          tenantId: t.id,
          visitorId: `bench_live_visitor_${b}_${i}`,
        })),
      )
      .returning();
    for (const r of rows)
      convs.push({
        tenantId: t.id,
        key: t.widgetKey,
        id: r.id,
        token: signVisitorToken(opts.secret, { tenantId: t.id, visitorId: r.visitorId }).token,
      });
  }
  return { convs, consoles };
}
