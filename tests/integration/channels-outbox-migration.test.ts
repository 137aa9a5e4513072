import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealChannelSecret } from "@/lib/channels/identity";
import { sendBatch } from "@/lib/channels/send";
import { createDb, type DbHandle } from "@/lib/db/client";
import { migrate, migrationsFolder } from "@/lib/db/migrate";
import { type ChannelWorld, startChannelWorld } from "../support/channel-world";
import { createEmptyDatabase } from "../support/db";

// drizzle/0044 moves the outbound row from formatted parts to one stored reply (Markdown and its buttons
// offer). Replies queued before it, still in the old shape, must be sent after it: each exactly once. A
// database is migrated up to 0041, given queued replies the way the old code stored them, migrated the rest
// of the way, and the sender run twice over it.

let c: ChannelWorld;
let db: DbHandle;
let drop: () => Promise<void> = async () => {};

/** The migrations folder with its journal cut after `lastTag`. */
function folderUpTo(lastTag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "michi-migrations-"));
  cpSync(migrationsFolder(), dir, { recursive: true });
  const journalPath = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((e) => e.tag === lastTag);
  journal.entries = journal.entries.slice(0, end + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

async function migrateUpTo(handle: DbHandle, lastTag: string) {
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate: run } = await import("drizzle-orm/node-postgres/migrator");
  const client = await handle.raw.pool.connect();
  try {
    await run(drizzle(client), { migrationsFolder: folderUpTo(lastTag) });
    await client.query("select michi_secure_tenant_tables()");
  } finally {
    client.release();
  }
}

beforeAll(async () => {
  // The world for its settings and its fake Graph API; the database under test is this file's own.
  c = await startChannelWorld();
  if (process.env.DATABASE_URL) {
    const created = await createEmptyDatabase();
    db = await createDb({ url: created.url, poolMax: 3 });
    drop = created.drop;
  } else {
    db = await createDb({ dataDir: null });
  }
  await migrateUpTo(db, "0041_live_auto_assigned");
}, 120_000);

afterAll(async () => {
  await db?.close();
  await drop();
  await c?.close();
});

describe("replies queued before drizzle/0044", () => {
  it("are each sent exactly once after it", async () => {
    const tenantId = randomUUID();
    const connectionId = randomUUID();
    const conversationId = randomUUID();
    const batch = randomUUID();
    const to = "15550123000";
    const accessToken = sealChannelSecret(c.graph.accessToken, tenantId, connectionId, "accessToken");
    const q = (text: string, params: unknown[]) => db.raw.pool.query(text, params);
    await q("insert into tenants (id, slug, name, widget_key) values ($1, $2, 'Old shop', $3)", [
      tenantId,
      `old-${tenantId.slice(0, 8)}`,
      `wk_${tenantId.replaceAll("-", "")}`,
    ]);
    await q(
      `insert into channel_connections (id, tenant_id, channel, key, settings, secrets)
       values ($1, $2, 'whatsapp', $3, $4, $5)`,
      [
        connectionId,
        tenantId,
        `key_${connectionId.replaceAll("-", "")}`,
        JSON.stringify({ phoneNumberId: c.graph.phoneNumberId }),
        JSON.stringify({ accessToken }),
      ],
    );
    await q("insert into conversations (id, tenant_id, visitor_id) values ($1, $2, 'wa:old')", [
      conversationId,
      tenantId,
    ]);
    await q(
      `insert into channel_contacts (tenant_id, connection_id, address, conversation_id, last_inbound_at)
       values ($1, $2, $3, $4, now())`,
      [tenantId, connectionId, to, conversationId],
    );
    // The old shape: one row per part, already in WhatsApp's formatting, the last with its buttons.
    const parts = [
      { text: "We open at *nine*." },
      { text: "Anything else?", buttons: ["Opening hours"], person: "Talk to a person" },
    ];
    for (const [part, body] of parts.entries()) {
      await q(
        `insert into channel_outbound (tenant_id, connection_id, conversation_id, batch, part, body)
         values ($1, $2, $3, $4, $5, $6)`,
        [tenantId, connectionId, conversationId, batch, part, JSON.stringify(body)],
      );
    }

    await migrate(db);
    const before = c.graph.sent.length;
    const deps = { ...c.deps, db };
    await sendBatch(deps, { tenantId, connectionId, batch }, false);
    // A second sender (the send job after the worker's own attempt) finds nothing left to send.
    await sendBatch(deps, { tenantId, connectionId, batch }, false);

    const sent = c.graph.sent.slice(before).filter((m) => m.to === to);
    expect(sent.map((m) => m.type)).toEqual(["text", "interactive"]);
    expect(JSON.stringify(sent[0]!.body)).toContain("We open at *nine*.");
    expect(JSON.stringify(sent[1]!.body)).toContain("Talk to a person");
    const { rows } = await q("select status from channel_outbound where batch = $1 order by part", [batch]);
    expect(rows.map((r) => (r as { status: string }).status)).toEqual(["sent", "sent"]);
  });
});
