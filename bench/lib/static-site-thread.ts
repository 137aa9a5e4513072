import { Worker } from "node:worker_threads";
import type { StaticSite } from "./static-site";

// The static site on a thread of its own. The business's website is another machine: its TLS encryption, file
// reads and sitemap rewriting must not run on the event loop whose delay the knowledge bench measures during
// a sync (in-process, they were part of the "sync" figure). Same options and answers as serveStaticSite.

const BOOT = `
const { parentPort, workerData } = require("node:worker_threads");
import("tsx/esm/api").then((m) => { m.register(); return import(workerData.module); }).then(async (mod) => {
  const site = await mod.serveStaticSite(workerData.dir, workerData.opts);
  parentPort.on("message", async (m) => { if (m === "close") { await site.close(); parentPort.postMessage("closed"); } });
  parentPort.postMessage({ origin: site.origin, host: site.host, caPem: site.caPem });
});`;

export async function serveStaticSiteOnThread(
  dir: string,
  opts: { originInFiles: string; copies?: number },
): Promise<Omit<StaticSite, "requests">> {
  const module = new URL("./static-site.ts", import.meta.url).href;
  const worker = new Worker(BOOT, {
    eval: true,
    workerData: { dir, opts, module },
    execArgv: ["--conditions=react-server"],
  });
  const info = await new Promise<{ origin: string; host: string; caPem: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    ...info,
    close: async () => {
      const closed = new Promise((r) => worker.once("message", r));
      worker.postMessage("close");
      await closed;
      await worker.terminate();
    },
  };
}
