import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// The real website copies in ../shared/knowledge-sites (see its README): read from there at test and bench
// time, never copied into the repository. A clone without ../shared skips what needs them, saying so.

const ROOT = path.resolve(import.meta.dirname, "../../../shared/knowledge-sites");

/** The folder of the Login.gov help-centre copy, or null (with a warning) when ../shared is absent. */
export function logingovDir(): string | null {
  const dir = path.join(ROOT, "logingov");
  if (existsSync(path.join(dir, "sitemap.xml"))) return dir;
  console.warn(`SKIPPED: ${dir} is absent, so the tests on the real Login.gov pages do not run.`);
  return null;
}

/** Every HTML page of a site folder, as its URL path ("/help.html") and its source. */
export function sitePages(dir: string): { path: string; html: string }[] {
  const out: { path: string; html: string }[] = [];
  const visit = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, entry.name);
      if (entry.isDirectory()) visit(rel);
      else if (entry.name.endsWith(".html"))
        out.push({ path: `/${rel}`, html: readFileSync(path.join(dir, rel), "utf8") });
    }
  };
  visit("");
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
