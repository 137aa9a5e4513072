import { describeLevel, type Measured, measureLevel, michiSide } from "./chat-overhead";
import { makeClient } from "./lib/client";
import { sleep } from "./lib/procs";
import { seedBench } from "./lib/seed";
import { freshDatabase, startApp, type World } from "./lib/servers";
import { round } from "./lib/stats";

// The chat levels on the embedded database, which is what a newcomer runs (the Docker image without
// DATABASE_URL, `npm start` on .data/): a fresh PGlite data directory, seeded, then the production server on it.
// Only michi-chat runs here: the baseline has no database, its figures are in the Postgres levels.

export type PgliteLevel = Measured & { rssMb: number | null };

export type ChatPgliteResult = {
  /** Resident memory a few seconds after start-up, before any visitor. */
  idleRssMb: number | null;
  levels: PgliteLevel[];
};

export async function benchChatPglite(opts: {
  standalone: string;
  world: World;
  quick: boolean;
  log: (s: string) => void;
}): Promise<ChatPgliteResult> {
  const levels = opts.quick ? [1, 100] : [1, 100, 200];
  const durationMs = opts.quick ? 3000 : 10_000;
  const db = await freshDatabase("pglite-chat", null);
  await seedBench(db, opts.world.fixtureOrigin);
  const app = await startApp({ standalone: opts.standalone, db, world: opts.world });
  const sessions = makeClient(app.url, app.origin);
  try {
    // Start-up work (migrations check, seed check, the tokenizer warming) settles within a few seconds.
    await sleep(3000);
    const idle = app.rssKb();
    const idleRssMb = idle === null ? null : round(idle / 1024, 1);
    opts.log(`  pglite   idle RSS after start ${idleRssMb ?? "?"} MB`);
    const side = await michiSide(app, sessions, Math.max(...levels));
    const out: PgliteLevel[] = [];
    for (const [i, concurrency] of levels.entries()) {
      const warmUp = !opts.quick || i === 0;
      const r = await measureLevel({ side, world: opts.world, concurrency, durationMs, warmUp });
      const rss = app.rssKb();
      out.push({ ...r, rssMb: rss === null ? null : round(rss / 1024, 1) });
      opts.log(describeLevel("pglite", r));
    }
    return { idleRssMb, levels: out };
  } finally {
    sessions.close();
    await app.stop();
  }
}
