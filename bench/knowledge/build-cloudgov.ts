// Builds the second bench site: cloud.gov's help and documentation pages (github.com/cloud-gov/cg-site, public
// domain / CC0), rendered from the Jekyll Markdown of a pinned commit into static HTML like the published site:
// one page per document at its Jekyll address, a shared header, navigation and footer, a side list of the
// section's pages, internal links, sitemap.xml and robots.txt. Nothing of it is committed: the pages go to an
// outside folder, and the bench (bench/knowledge.ts) skips the site loudly when the folder is not there.
//
//   npx tsx bench/knowledge/build-cloudgov.ts            (KNOWLEDGE_EXTRA_DIR, default /work/knowledge-extra/cloudgov)
//   CLOUDGOV_REPO=/path/to/cg-site.git                  (default: the fetch mirror /work/.mirror/cloud-gov+cg-site/repo)
//
// manifest.json maps each source path ("_docs/management/foo.md") to its address ("/docs/management/foo/").
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { renderMarkdown } from "./markdown";

export const CLOUDGOV_COMMIT = "536b459f25dc541450f8b02675b32584196a05fd";
/** The origin written in the built files; the bench's static server rewrites it to where it serves them. */
export const CLOUDGOV_ORIGIN = "https://localhost:8442";
/** Folders robots.txt disallows, so the bench can check that nothing from them is indexed. */
export const CLOUDGOV_DISALLOWED = ["/docs/customer-stories/", "/docs/ops/"];

export function cloudgovDir(): string {
  return process.env.KNOWLEDGE_EXTRA_DIR ?? "/work/knowledge-extra/cloudgov";
}

type Doc = { source: string; url: string; title: string; section: string; date: string; body: string };

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", ["--git-dir", repo, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
}

function frontMatter(text: string): { data: Record<string, string>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { data: {}, body: text };
  const data: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (kv) data[kv[1]!] = kv[2]!.replace(/^["']|["']$/g, "").trim();
  }
  return { data, body: text.slice(m[0].length) };
}

/** The address Jekyll gives a document (_config.yml: docs at /docs/:path/, pages at /:path/, posts pretty). */
function urlOf(source: string, data: Record<string, string>): string {
  if (data.permalink) {
    const p = data.permalink.startsWith("/") ? data.permalink : `/${data.permalink}`;
    return p.endsWith("/") || p.endsWith(".html") ? p : `${p}/`;
  }
  const [collection, ...rest] = source.split("/");
  const stem = rest.join("/").replace(/\.md$/, "");
  if (collection === "_posts") {
    // One file names its day without leading zeros (2023-8-1-...): Jekyll pads them in the address.
    const m = /^(\d{4})-(\d{1,2})-(\d{1,2})-(.*)$/.exec(stem)!;
    return `/${m[1]}/${m[2]!.padStart(2, "0")}/${m[3]!.padStart(2, "0")}/${m[4]}/`;
  }
  if (collection === "_docs") return stem === "index" ? "/docs/" : `/docs/${stem.replace(/\/index$/, "")}/`;
  return stem === "index" ? "/" : `/${stem.replace(/\/index$/, "")}/`;
}

function sectionOf(source: string): string {
  const parts = source.split("/");
  if (parts[0] === "_posts") return "News";
  if (parts[0] === "_pages") return parts.length > 2 ? "Pages" : "About";
  return parts.length > 2 ? parts[1]!.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase()) : "Docs";
}

const escHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

function layout(doc: Doc, side: Doc[], nav: { name: string; url: string }[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escHtml(doc.title)} | cloud.gov</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<header class="site-header"><a href="/" class="logo">cloud.gov</a>
<nav class="primary"><ul>${nav.map((n) => `<li><a href="${n.url}">${escHtml(n.name)}</a></li>`).join("")}</ul></nav>
<form action="/search/"><input name="q" placeholder="Search cloud.gov"></form></header>
<div class="layout">
<aside class="sidenav"><h2>${escHtml(doc.section)}</h2><ul>${side
    .map((s) => `<li><a href="${s.url}">${escHtml(s.title)}</a></li>`)
    .join("")}</ul></aside>
<main><h1>${escHtml(doc.title)}</h1>${doc.date ? `<p class="date">${doc.date}</p>` : ""}
${doc.body}
</main></div>
<footer class="site-footer"><p>cloud.gov is a product of the Technology Transformation Services at GSA.</p>
<ul><li><a href="/docs/overview/what-is-cloudgov/">About</a></li><li><a href="/2015/05/29/week-update/">News</a></li>
<li><a href="mailto:support@cloud.gov">support@cloud.gov</a></li></ul></footer>
</body></html>
`;
}

export function buildCloudgov(opts: { repo?: string; dir?: string; log?: (s: string) => void } = {}) {
  const repo = opts.repo ?? process.env.CLOUDGOV_REPO ?? "/work/.mirror/cloud-gov+cg-site/repo";
  const dir = opts.dir ?? cloudgovDir();
  const files = git(repo, "ls-tree", "-r", "--name-only", CLOUDGOV_COMMIT, "_docs", "_pages", "_posts")
    .split("\n")
    .filter((f) => f.endsWith(".md"));
  const docs: Doc[] = [];
  for (const source of files) {
    const { data, body } = frontMatter(git(repo, "show", `${CLOUDGOV_COMMIT}:${source}`));
    if (data.published === "false") continue;
    const date = /^_posts\/(\d{4}-\d{1,2}-\d{1,2})/.exec(source)?.[1] ?? "";
    docs.push({
      source,
      url: urlOf(source, data),
      title: data.title || source,
      section: sectionOf(source),
      date,
      body,
    });
  }
  const known = new Set(docs.map((d) => d.url));
  // Links to cloud.gov itself become site-relative, so the crawler stays on the served copy.
  const link = (href: string) => {
    const local = href.replace(/^https?:\/\/(www\.)?cloud\.gov/, "");
    if (!local.startsWith("/")) return href;
    const [p, hash] = local.split("#");
    const withSlash = p && !p.endsWith("/") && !/\.\w+$/.test(p) ? `${p}/` : p;
    return known.has(withSlash ?? "") || !withSlash ? `${withSlash}${hash ? `#${hash}` : ""}` : local;
  };
  const bySection = new Map<string, Doc[]>();
  for (const d of docs) bySection.set(d.section, [...(bySection.get(d.section) ?? []), d]);
  const nav = [...bySection.entries()]
    .filter(([s]) => s !== "News")
    .map(([name, list]) => ({ name, url: list[0]!.url }));
  rmSync(dir, { recursive: true, force: true });
  const bySource = new Map(docs.map((d) => [d.source, d.url]));
  // Jekyll's own link tags and base URL, resolved before the renderer drops the remaining Liquid.
  const liquid = (md: string) =>
    md
      .replace(/\{\{-?\s*site\.baseurl\s*-?\}\}/g, "")
      .replace(/\{%-?\s*(?:link|post_url)\s+(\S+)\s*-?%\}/g, (_, src: string) => bySource.get(src) ?? "/");
  for (const d of docs) {
    const html = layout(
      { ...d, body: renderMarkdown(liquid(d.body), link) },
      bySection.get(d.section)!.slice(0, 60),
      nav,
    );
    const file = d.url.endsWith(".html") ? path.join(dir, d.url) : path.join(dir, d.url, "index.html");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, html);
  }
  if (!known.has("/")) {
    const home: Doc = { source: "", url: "/", title: "cloud.gov", section: "cloud.gov", date: "", body: "" };
    const list = [...bySection.entries()]
      .map(
        ([s, l]) =>
          `<h2>${escHtml(s)}</h2><ul>${l.map((d) => `<li><a href="${d.url}">${escHtml(d.title)}</a></li>`).join("")}</ul>`,
      )
      .join("\n");
    writeFileSync(path.join(dir, "index.html"), layout({ ...home, body: list }, [], nav));
  }
  writeFileSync(
    path.join(dir, "sitemap.xml"),
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${docs
      .map((d) => `<url><loc>${CLOUDGOV_ORIGIN}${d.url}</loc></url>`)
      .join("\n")}\n</urlset>\n`,
  );
  writeFileSync(
    path.join(dir, "robots.txt"),
    `User-agent: *\n${CLOUDGOV_DISALLOWED.map((d) => `Disallow: ${d}`).join("\n")}\n\nSitemap: ${CLOUDGOV_ORIGIN}/sitemap.xml\n`,
  );
  const manifest = {
    about: `cloud.gov (github.com/cloud-gov/cg-site at ${CLOUDGOV_COMMIT}, public domain), built by bench/knowledge/build-cloudgov.ts`,
    origin: CLOUDGOV_ORIGIN,
    disallowed: CLOUDGOV_DISALLOWED,
    pages: Object.fromEntries(docs.map((d) => [d.source, d.url])),
  };
  writeFileSync(path.join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  opts.log?.(`cloudgov: ${docs.length} pages in ${dir}`);
  return manifest;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildCloudgov({ log: console.log });
}
