import type { FixtureReply, FixtureRequest, FixtureRoute } from "./fixture-site";
import { writePdf } from "./pdf-writer";

// A small bakery website under /kb/ on the e2e world's https fixture site, for the knowledge journey
// (tests/e2e/knowledge.spec.ts): a sitemap, robots.txt keeping /kb/private/ out, a printable copy whose
// canonical link names the real page, a noindex page and a PDF. The spec changes a page and removes one
// through /__kb/control (?reset=1, ?change=1, ?remove=/kb/...), because the site runs in the world's process.

const PAGES = [
  "/kb/",
  "/kb/bikes",
  "/kb/cakes",
  "/kb/cakes-print",
  "/kb/staff",
  "/kb/private/notes",
  "/kb/allergens.pdf",
];

const state = { cakeDays: "three", removed: new Set<string>() };

const originOf = (req: FixtureRequest) => `https://${req.headers.host ?? "localhost"}`;
const html = (body: string): FixtureReply => ({
  body,
  headers: { "content-type": "text/html; charset=utf-8" },
});

function page(title: string, main: string, head = ""): (req: FixtureRequest) => FixtureReply {
  return (req) => {
    if (state.removed.has(req.path))
      return { status: 404, body: "<h1>Not here</h1>", headers: { "content-type": "text/html" } };
    return html(`<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body>
<nav><a href="/kb/">Home</a></nav><main><h1>${title}</h1>${main}</main><footer>Kumo Bakery</footer></body></html>`);
  };
}

export const KB_ROUTES: Record<string, FixtureRoute> = {
  "/robots.txt": () => ({
    body: "User-agent: *\nDisallow: /kb/private/\n",
    headers: { "content-type": "text/plain" },
  }),
  "/kb/sitemap.xml": (req) => ({
    body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${PAGES.map(
      (p) => `<url><loc>${originOf(req)}${p}</loc></url>`,
    ).join("")}</urlset>`,
    headers: { "content-type": "application/xml" },
  }),
  "/kb/": page("Kumo Bakery", "<p>Sourdough loaves and pastries baked before sunrise in a small shop.</p>"),
  "/kb/bikes": page(
    "Coming by bike",
    "<p>Bicycle parking: a covered rack for twelve bikes stands in the courtyard behind the shop.</p>",
  ),
  "/kb/cakes": (req) =>
    page(
      "Birthday cakes",
      `<p>Order a birthday cake ${state.cakeDays} days ahead, by phone or at the counter.</p>`,
    )(req),
  "/kb/cakes-print": page(
    "Birthday cakes (print)",
    "<p>The printable version of the cake ordering page.</p>",
    '<link rel="canonical" href="/kb/cakes">',
  ),
  "/kb/staff": page(
    "Staff rota",
    "<p>Internal rota for the bakers, not for customers.</p>",
    '<meta name="robots" content="noindex">',
  ),
  "/kb/private/notes": page("Private notes", "<p>Notes the robots file keeps out of any index.</p>"),
  "/kb/allergens.pdf": () => ({
    body: Buffer.from(
      writePdf([[{ text: "Allergens", size: 18 }, { text: "Our rye loaf is topped with sesame seeds." }]], {
        title: "Allergens",
      }),
    ),
    headers: { "content-type": "application/pdf" },
  }),
  "/__kb/control": (req) => {
    if (req.query.get("reset")) {
      state.cakeDays = "three";
      state.removed.clear();
    }
    if (req.query.get("change")) state.cakeDays = "five";
    const gone = req.query.get("remove");
    if (gone) state.removed.add(gone);
    return { body: { cakeDays: state.cakeDays, removed: [...state.removed] } };
  },
};
