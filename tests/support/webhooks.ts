import type { DbHandle } from "@/lib/db/client";
import type { JobQueue } from "@/lib/queue";
import { createWebhookPoster } from "@/lib/security/webhook-post";
import type { DeliverDeps } from "@/lib/webhooks/deliver";
import { installWebhookQueue, startWebhookQueue } from "@/lib/webhooks/worker";
import type { WebhookReceiver } from "./webhook-receiver";

// A webhook queue for integration tests: the real pg-boss workers on the test database, polling twice a
// second, with a backoff of about a second instead of half a minute (the retry arithmetic is pg-boss's own),
// posting through a guarded fetch that trusts the test receiver's CA and allows its localhost port.

export const TEST_POLICY = { retryLimit: 2, retryDelaySeconds: 1, expireInSeconds: 30 };

export async function startTestWebhookQueue(
  db: DbHandle,
  receiver: Pick<WebhookReceiver, "host" | "caPem">,
  opts: { deps?: Partial<DeliverDeps>; retryLimit?: number; install?: boolean } = {},
): Promise<JobQueue> {
  const poster = createWebhookPoster({
    allowHosts: [receiver.host],
    extraCaPem: receiver.caPem,
    timeoutMs: 5000,
  });
  const q = await startWebhookQueue(db, {
    pollingIntervalSeconds: 0.5,
    policies: {
      "webhook-delivery": { ...TEST_POLICY, retryLimit: opts.retryLimit ?? TEST_POLICY.retryLimit },
    },
    deps: { poster, ...opts.deps },
  });
  if (opts.install !== false) installWebhookQueue(q);
  return {
    ...q,
    async stop() {
      await q.stop();
      await poster.close();
    },
  };
}
