import { createParser } from "eventsource-parser";
import type { DbHandle } from "@/lib/db/client";
import { conversations, type tenants } from "@/lib/db/schema";
import { verifyVisitorToken } from "@/lib/security/visitor-token";

// Reading a held live stream (src/lib/live/stream.ts) in tests: events arrive while the test waits on a
// condition over everything received so far, never on a timer.

export type LiveMessage = { id: string | undefined; event: string; data: Record<string, unknown> };

export type LiveReader = {
  messages: LiveMessage[];
  /** The delivered live events (not `ready`), as "kind:text-or-state" for short assertions. */
  seen(): string[];
  /** Resolves once `pred` holds for what arrived; rejects when the stream ends first. */
  until(pred: (m: LiveMessage[]) => boolean): Promise<void>;
  close(): Promise<void>;
};

export function readLive(res: Response): LiveReader {
  const messages: LiveMessage[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const parser = createParser({
    onEvent: (e) => {
      messages.push({ id: e.id, event: e.event ?? "message", data: JSON.parse(e.data) });
      for (const w of waiters) w();
    },
  });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const pumping = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(dec.decode(value, { stream: true }));
      }
    } catch {
      // cancelled
    } finally {
      ended = true;
      for (const w of waiters) w();
    }
  })();
  return {
    messages,
    seen: () =>
      messages
        .filter((m) => m.event !== "ready")
        .map((m) => {
          const d = m.data.data as Record<string, unknown>;
          return `${m.event}:${String(d.text ?? d.state ?? "")}`;
        }),
    until(pred) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(messages)) {
            waiters.delete(check);
            resolve();
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`stream ended; got ${JSON.stringify(messages.map((m) => m.event))}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      await reader.cancel().catch(() => {});
      await pumping;
    },
  };
}

export const readyCount = (m: LiveMessage[]) => m.filter((x) => x.event === "ready").length;
export const liveCount = (m: LiveMessage[]) => m.filter((x) => x.event !== "ready").length;

/** A visitor's token and a conversation of theirs in `tenant`. */
export async function visitorConversation(
  db: DbHandle,
  tenant: typeof tenants.$inferSelect,
  token: string,
  secret: string,
): Promise<string> {
  const v = verifyVisitorToken(secret, token, tenant.id);
  if (!v.ok) throw new Error("bad token");
  const [row] = await db.platform
    .insert(conversations)
    .values({ tenantId: tenant.id, visitorId: v.claims.visitorId })
    .returning();
  return row!.id;
}
