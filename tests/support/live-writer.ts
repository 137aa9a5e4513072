// A second process on the same database: appends live events and wakes the streams, the way another
// instance of the platform would (the same appendLiveEvent and wakeLive). Started by
// tests/integration/live-instances.test.ts with DATABASE_URL (and REDIS_URL for the Redis mode):
//   node --import tsx --conditions=react-server tests/support/live-writer.ts <tenant> <conversation> <text>…
import { createDb } from "@/lib/db/client";
import { appendLiveEvent } from "@/lib/db/queries/live-events";
import { closeLiveWakes, wakeLive } from "@/lib/live/bus";

const [tenantId, conversationId, ...texts] = process.argv.slice(2);
const db = await createDb({ url: process.env.DATABASE_URL!, poolMax: 2 });
for (const [i, text] of texts.entries()) {
  await db.forTenant(tenantId!, (tx) =>
    appendLiveEvent(tx, {
      conversationId: conversationId!,
      kind: "agent_message",
      data: { messageId: `child-${i}`, text, agent: { id: "agent", name: "Ana" } },
    }),
  );
  wakeLive(tenantId!, conversationId!);
}
await closeLiveWakes();
await db.close();
process.stdout.write("done\n");
