import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { certificates } from "../../tests/support/fixture-site";

// Serves a static site folder (../shared/knowledge-sites/logingov) over https on 127.0.0.1 with a throwaway CA,
// rewriting the origin its sitemap and robots.txt name to where it is served. `copies` serves the site again
// under /copy-N/ (sitemap entries too), each page with its copy number in its text, for a larger crawl.

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".xml": "application/xml",
  ".txt": "text/plain",
  ".css": "text/css",
};

export type StaticSite = {
  origin: string;
  host: string;
  caPem: string;
  requests: string[];
  close(): Promise<void>;
};

export async function serveStaticSite(
  dir: string,
  opts: { originInFiles: string; copies?: number },
): Promise<StaticSite> {
  const { caPem, key, cert } = await certificates();
  const requests: string[] = [];
  let origin = "";
  const copies = opts.copies ?? 0;
  const server = createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://localhost");
    requests.push(url.pathname);
    let p = decodeURIComponent(url.pathname);
    const copy = /^\/copy-(\d+)(\/.*)$/.exec(p);
    if (copy) p = copy[2]!;
    if (p.endsWith("/")) p += "index.html";
    const file = path.join(dir, path.normalize(p).replace(/^(\.\.[/\\])+/, ""));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    let body = readFileSync(file, "utf8").replaceAll(opts.originInFiles, origin);
    if (p === "/sitemap.xml" && !copy && copies > 0) {
      const locs = [...body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
      const extra = locs.flatMap((l) =>
        Array.from(
          { length: copies },
          (_, i) => `<url><loc>${l.replace(origin, `${origin}/copy-${i + 1}`)}</loc></url>`,
        ),
      );
      body = body.replace("</urlset>", `${extra.join("")}</urlset>`);
    }
    // Each copy keeps the site's robots rules: what is disallowed at /x/ is disallowed at /copy-N/x/ too.
    if (p === "/robots.txt" && !copy && copies > 0) {
      const rules = [...body.matchAll(/^Disallow:\s*(\S+)/gm)].map((m) => m[1]!);
      const extra = rules.flatMap((r) =>
        Array.from({ length: copies }, (_, i) => `Disallow: /copy-${i + 1}${r}`),
      );
      body = body.replace(/^(Disallow:.*)$/m, `$1\n${extra.join("\n")}`);
    }
    if (copy && p.endsWith(".html"))
      body = body.replace(/<main([^>]*)>/, `<main$1><p>Copy ${copy[1]} of this page.</p>`);
    res.writeHead(200, { "content-type": TYPES[path.extname(p)] ?? "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  origin = `https://localhost:${port}`;
  return {
    origin,
    host: `localhost:${port}`,
    caPem,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
