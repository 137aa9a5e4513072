import { getDb } from "@/lib/db";
import { findTenantBySlug } from "@/lib/db/queries/tenants";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { DEMO_SLUG } from "@/lib/tenants/seed";
import { FRONT_DOOR_WORDS, frontDoorLang } from "@/shared/front-door-words";
import { escapeHtml } from "@/widget/server/panel-html";

// The demo tenant's "website": a plain HTML page that embeds the widget with the same one-line snippet a
// customer pastes, so the demo exercises exactly what ships (loader, launcher, framing rules, panel).
// A route handler rather than a React page, so nothing of the app's own scripts is on the page.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const CSS = `
body{margin:0;font:17px/1.6 Georgia,"Times New Roman",serif;color:#2b2118;background:#fbf7f1}
header{background:#0f766e;color:#fff;padding:48px 24px}
header h1{margin:0;font-size:2.4rem}
header p{margin:.4rem 0 0;font-size:1.1rem}
main{max-width:760px;margin:0 auto;padding:24px}
section{margin:28px 0}
h2{font-size:1.4rem;margin:0 0 .4rem}
ul{padding-left:1.2rem}
pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid #d9cfc2;border-radius:8px;padding:12px;font:14px/1.5 ui-monospace,Menlo,monospace}
.note{font:15px/1.5 system-ui,sans-serif;color:#5a4c3f}
a{color:#0b5e57}
`;

function page(body: string, script: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Michi Café · demo</title>
<style>${CSS}</style>
</head>
<body>
${body}
${script}
</body>
</html>`;
}

// The app's own "not found" (src/app/not-found.tsx) in plain HTML: a route handler cannot render that page,
// and a visitor who follows an old "Try the demo" link should meet the same words and look, and a way home.
const NOT_FOUND_CSS = `
:root{color-scheme:light dark}
body{margin:0;font:16px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans JP",sans-serif;background:#f8fafc;color:#0f172a}
main{max-width:36rem;margin:0 auto;padding:4rem 1.5rem}
.kicker{font-size:.875rem;font-weight:600;text-transform:uppercase;letter-spacing:.025em;color:#0f766e}
.card{margin-top:1rem;background:#fff;border:1px solid #e2e8f0;border-radius:.75rem;padding:1.25rem}
h1{margin:0;font-size:1.5rem}
p{margin:.5rem 0 0;color:#475569}
a{display:inline-block;margin-top:1.5rem;border-radius:.5rem;padding:.5rem .9rem;font-weight:600;font-size:.875rem;background:#0f766e;color:#fff;text-decoration:none}
@media (prefers-color-scheme:dark){body{background:#1e293b;color:#f1f5f9}.kicker{color:#14b8a6}.card{background:#0f172a;border-color:#334155}p{color:#cbd5e1}}
`;

function notFoundPage(acceptLanguage: string | null): Response {
  const lang = frontDoorLang(acceptLanguage);
  const w = FRONT_DOOR_WORDS[lang];
  const html = `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(w.notFoundTitle)} · michi-chat</title>
<style>${NOT_FOUND_CSS}</style>
</head>
<body>
<main id="main">
<p class="kicker">michi-chat · 404</p>
<div class="card">
<h1>${escapeHtml(w.notFoundTitle)}</h1>
<p>${escapeHtml(w.notFoundText)}</p>
<a href="/">${escapeHtml(w.home)}</a>
</div>
</main>
</body>
</html>`;
  return new Response(html, {
    status: 404,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      Vary: "Accept-Language",
    },
  });
}

export async function GET(request: Request) {
  const e = env();
  // Off in production unless the operator asked for it (MICHI_DEMO): a tenant left from an earlier start
  // stays reachable only through its own admin.
  if (!e.MICHI_DEMO) return notFoundPage(request.headers.get("accept-language"));
  let key: string | null = null;
  try {
    const tenant = await findTenantBySlug((await getDb()).platform, DEMO_SLUG);
    if (tenant?.status === "active") key = tenant.widgetKey;
  } catch (err) {
    log().error({ err }, "demo page: could not read the demo tenant");
  }
  const src = `${e.MICHI_PUBLIC_URL}/widget.js`;
  const snippet = key
    ? `<script src="${escapeHtml(src)}" data-michi-key="${escapeHtml(key)}" async></script>`
    : "";
  const body = `<header>
<h1>Michi Café</h1>
<p>Coffee, cake and a quiet corner since 2019.</p>
</header>
<main>
<section>
<h2>Visit us</h2>
<p>1-2-3 Michi Street, Springfield. Dogs welcome on the terrace.</p>
<ul><li>Monday to Friday, 8:00 to 18:00</li><li>Saturday, 9:00 to 15:00</li><li>Closed on Sundays</li></ul>
</section>
<section>
<h2>Ask our assistant</h2>
<p>Open the chat button in the corner and ask whether we are open, where we are, or what is vegan today.</p>
</section>
<section class="note">
<h2>About this demo</h2>
${
  key
    ? `<p>This page is an ordinary website that embeds the michi-chat widget with one line, exactly as a customer site would:</p>
<pre>${escapeHtml(snippet)}</pre>
<p>See <a href="/">michi-chat</a> for the platform.</p>`
    : `<p>The demo business is not set up on this server, so the chat is not shown.</p>`
}
</section>
</main>`;
  return new Response(page(body, snippet), {
    status: key ? 200 : 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}
