import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { rowsOf } from "../src/lib/db/client";
import { migrationsApplied } from "../src/lib/db/migrate";
import { createTenant } from "../src/lib/db/queries/tenants";
import { createExtractPool } from "../src/lib/knowledge/extract-pool";
import { startSync } from "../src/lib/knowledge/sync";
import { pdfBomb } from "../tests/support/bombs";
import { freshDb } from "../tests/support/db";
import { addSitemapSource, startKnowledgeInstance } from "../tests/support/knowledge";
import { serveBombSiteOnThread } from "./lib/bomb-site";
import { round } from "./lib/stats";

// Hostile knowledge input in process (issue 44, findings 1-2): a 19 MB sitemap of 95,000 pages, a sitemap index
// naming twelve of them, and a 1 MB PDF whose stream inflates to 1 GiB, processed by the real sync jobs and
// extraction workers on a fresh database (PGlite unless DATABASE_URL), while a timer measures this process's
// event loop (monitorEventLoopDelay) and the readiness check (/api/ready's ping and migrations) runs every
// 100 ms. The same measures for the same time with nothing to do are the idle figures beside them. The site
// serves from its own thread (bench/lib/bomb-site.ts), so its work is not counted as the platform's.

export type KnowledgeBombsResult = {
  idleLoopP99Ms: number;
  busyLoopP99Ms: number;
  busyLoopMaxMs: number;
  readinessChecks: number;
  readinessFailures: number;
  rssGrowthMb: number;
  pdfRefusal: string;
  sitemapNotices: (string | null)[];
  seconds: number;
  /** PGlite runs its queries on this process's event loop, Postgres in its own processes. */
  database: "pglite" | "postgres";
};

const MB = 1024 * 1024;

export async function benchKnowledgeBombs(opts: { log: (s: string) => void }): Promise<KnowledgeBombsResult> {
  const { log } = opts;
  const site = await serveBombSiteOnThread();
  const origin = site.origin;
  const bomb = await pdfBomb();
  const db = await freshDb();
  log(
    `  sitemap ${round(site.sitemapMb, 1)} MB (${round(site.gzMb, 2)} MB gzipped), PDF bomb ${round(bomb.byteLength / MB, 2)} MB, database ${db.url ? "Postgres" : "PGlite (in this process)"}`,
  );
  const k = await startKnowledgeInstance(db.handle, site);
  const pool = createExtractPool();
  const started = performance.now();
  try {
    let checks = 0;
    let failures = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        checks += 1;
        try {
          await db.handle.ping(2000);
          if (!(await migrationsApplied(db.handle))) failures += 1;
        } catch {
          failures += 1;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const window = async (ms: number, work?: () => Promise<void>) => {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      const t0 = performance.now();
      if (work) await work();
      const left = ms - (performance.now() - t0);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      h.disable();
      return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
    };
    const idle = await window(5_000);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const notices: (string | null)[] = [];
    let refusal = "";
    const busy = await window(5_000, async () => {
      const sync = async (path: string, slug: string) => {
        const tenantId = (await createTenant(db.handle.platform, { slug, name: slug })).id;
        const sourceId = await addSitemapSource(db.handle, tenantId, `${origin}${path}`, {
          pageCap: Number(process.env.BOMBS_PAGE_CAP ?? 500),
          schedule: "off",
        });
        await startSync(db.handle, k.queue, { tenantId, sourceId, actor: null, reason: "manual" });
        for (;;) {
          const [row] = await rowsOf<{ last_sync_error: string | null; run_queued: number }>(
            db.handle.platform,
            sql`select last_sync_error, run_queued from knowledge_sources where id = ${sourceId}`,
          );
          if (row && row.run_queued > 0) return notices.push(row.last_sync_error);
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      const pdf = pool
        .extract({ bytes: bomb, contentType: "application/pdf", url: "https://bench.example/bomb.pdf" })
        .then((r) => {
          refusal = r.ok ? "read (not refused)" : `${r.reason}: ${r.message}`;
        });
      await Promise.all([sync("/huge.xml", "bombs-one"), sync("/index.xml", "bombs-index"), pdf]);
    });
    clearInterval(sampler);
    probing = false;
    await probe;
    return {
      idleLoopP99Ms: round(idle.p99),
      busyLoopP99Ms: round(busy.p99),
      busyLoopMaxMs: round(busy.max),
      readinessChecks: checks,
      readinessFailures: failures,
      rssGrowthMb: round((peak - rssBefore) / MB, 1),
      pdfRefusal: refusal,
      sitemapNotices: notices,
      seconds: round((performance.now() - started) / 1000, 1),
      database: db.url ? "postgres" : "pglite",
    };
  } finally {
    await pool.close();
    await k.stop();
    await db.close();
    await site.close();
  }
}
