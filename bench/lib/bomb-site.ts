import { Worker } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import { startFixtureSite } from "../../tests/support/fixture-site";

// The hostile site of the knowledge-bombs bench: a 19 MB sitemap (gzipped, as a real sitemap.xml.gz is) and an
// index naming twelve copies of it. It runs on a thread of its own because the site is another machine: when it
// ran in the bench's process, building, compressing and encrypting 13 × 19 MB of answers landed on the very event
// loop whose delay the bench reports as the platform's.

export type BombSite = { origin: string; host: string; caPem: string; sitemapMb: number; gzMb: number };

const MB = 1024 * 1024;

/** Serves the site in this thread; `serveBombSiteOnThread` is what the bench calls. */
export async function serveBombSite(): Promise<BombSite & { close(): Promise<void> }> {
  const urlset = (inner: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${inner}</urlset>`;
  let hugeGz = Buffer.alloc(0);
  let origin = "";
  const site = await startFixtureSite({
    routes: {
      "/robots.txt": () => ({ body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } }),
      "/huge.xml": () => ({ body: hugeGz, headers: { "content-type": "application/gzip" } }),
      "/index.xml": () => ({
        body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from(
          { length: 12 },
          (_, i) => `<sitemap><loc>${origin}/huge.xml?n=${i}</loc></sitemap>`,
        ).join("")}</sitemapindex>`,
        headers: { "content-type": "application/xml" },
      }),
    },
  });
  origin = site.origin;
  const huge = Buffer.from(
    urlset(
      Array.from(
        { length: 95_000 },
        (_, i) =>
          `<url><loc>${origin}/products/category-${i % 40}/item-${i}?colour=blue&amp;size=medium&amp;ref=sitemap</loc><lastmod>2026-11-30</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>`,
      ).join("\n"),
    ),
  );
  hugeGz = gzipSync(huge);
  return {
    origin,
    host: site.host,
    caPem: site.caPem,
    sitemapMb: huge.byteLength / MB,
    gzMb: hugeGz.byteLength / MB,
    close: () => site.close(),
  };
}

const BOOT = `
const { parentPort, workerData } = require("node:worker_threads");
import("tsx/esm/api").then((m) => { m.register(); return import(workerData.module); }).then(async (mod) => {
  const { close, ...site } = await mod.serveBombSite();
  parentPort.on("message", async (m) => { if (m === "close") { await close(); parentPort.postMessage("closed"); } });
  parentPort.postMessage(site);
});`;

export async function serveBombSiteOnThread(): Promise<BombSite & { close(): Promise<void> }> {
  const worker = new Worker(BOOT, {
    eval: true,
    workerData: { module: new URL("./bomb-site.ts", import.meta.url).href },
    execArgv: ["--conditions=react-server"],
  });
  const site = await new Promise<BombSite>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    ...site,
    close: async () => {
      const closed = new Promise((r) => worker.once("message", r));
      worker.postMessage("close");
      await closed;
      await worker.terminate();
    },
  };
}
