import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A customer's website for the widget e2e specs: a plain page on its own origin (another port) that embeds
// public/widget.js with the one-line snippet. Query parameters choose what the snippet carries:
//   ?key=K (repeatable)  &lang=ja  &open=1  &position=left  &offset=130  &queue=1 (calls michi("open") before
//   the loader)  &identify=TOKEN (calls michi("identify", TOKEN) before the loader)  &hostile=NAME (one of HOSTILE below: a page that breaks embeds the way real sites do)
// The same page is also served at /second, another page of the same site.

export type HostPage = {
  origin: string;
  url(params?: Record<string, string | string[]>, path?: "/" | "/second"): string;
  close(): Promise<void>;
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * Host pages that break embeds, each modelled on a report from the field:
 * - fetch: a page (consent manager, privacy or userscript layer) wrapping window.fetch and refusing
 *   cross-origin calls; wrapped fetches breaking other scripts: RoootTheFox/wplace-plusplus#3,
 *   vtex-apps/render-runtime#398 ("immune to buggy monkey patch in window.fetch"), segmentio/analytics-next#952
 *   (hooked fetch and polyfills in the top frame, a hidden iframe for a clean fetch).
 * - transform / filter / zoom: a fixed element inside a transformed or filtered ancestor is positioned against
 *   that ancestor (meyerweb.com/eric/thoughts/2011/09/12 "Un-fixing Fixed Elements with CSS Transforms";
 *   zudo-css "Containing Block for position fixed" lists transform, filter, backdrop-filter, perspective,
 *   will-change, contain); a launcher placed off-screen by it: cacheplane/threadplane#310.
 * - banner: a cookie banner at the highest z-index, the fix its own maintainers recommend
 *   (orestbida/cookieconsent#377: "set the z-Index to 2147483647"); chat widgets under or over such banners:
 *   pulumi/docs#5492, livechat/chat-widget-adapters#44 (a launcher hiding a bottom bar, asking for an offset).
 * - prototypes: Prototype.js < 1.7 replaced JSON.stringify's behaviour through Array.prototype.toJSON
 *   (prototypejs/prototype#327, mozilla/jschannel#17, amplitude/Amplitude-JavaScript#313); other pages overwrite
 *   Array.prototype methods (douglascrockford/JSON-js#34) or Promise with a broken polyfill.
 * - csp: a strict CSP as Google's guidance and widgetbot-io/embed#231 describe: nonces with 'strict-dynamic', no
 *   inline styles, connect-src 'self' (so no fetch to the platform), Trusted Types required for script sinks.
 */
export const HOSTILE = ["fetch", "transform", "filter", "zoom", "banner", "prototypes", "csp"] as const;
export type Hostile = (typeof HOSTILE)[number];

const HOSTILE_HEAD: Record<Hostile, string> = {
  fetch: `<script>(() => {
  const real = window.fetch;
  window.fetch = function (input, init) {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    if (url.origin !== location.origin) return Promise.reject(new TypeError("blocked by the host page"));
    return real.call(this, input, init);
  };
  window.XMLHttpRequest = function () { throw new Error("no XHR on this page"); };
})();</script>`,
  transform: "<style>body { transform: translateZ(0); min-height: 3000px }</style>",
  filter: "<style>body { filter: grayscale(1); min-height: 3000px }</style>",
  zoom: "<style>body { zoom: 1.5; min-height: 3000px }</style>",
  banner: "",
  prototypes: `<script>(() => {
  const broken = function () { throw new Error("broken by the host page"); };
  Array.prototype.toJSON = function () { return "not an array"; };
  for (const name of ["filter", "map", "forEach", "push", "indexOf", "includes", "find", "slice", "some"])
    Array.prototype[name] = broken;
  JSON.stringify = function () { return "{}"; };
  JSON.parse = broken;
  window.Promise = function () { throw new Error("no promises here"); };
})();</script>`,
  csp: "",
};

const BANNER = `<div id="consent" role="dialog" aria-label="Cookies" style="position:fixed;left:0;right:0;bottom:0;height:120px;z-index:2147483647;background:#222;color:#fff;padding:16px">We use cookies. <button type="button">Accept</button></div>`;

/** The Content-Security-Policy a hostile "csp" page is served with; the nonce goes on its scripts. */
export function hostileCsp(appUrl: string, nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self'",
    `frame-src ${new URL(appUrl).origin}`,
    "connect-src 'self'",
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
}

export function hostPageHtml(appUrl: string, q: URLSearchParams, nonce = ""): string {
  const hostile = q.get("hostile") as Hostile | null;
  const n = nonce ? ` nonce="${nonce}"` : "";
  const keys = q.getAll("key");
  const attrs = (key: string) =>
    [
      `src="${esc(appUrl)}/widget.js"`,
      `data-michi-key="${esc(key)}"`,
      q.get("lang") ? `data-michi-lang="${esc(q.get("lang")!)}"` : "",
      q.get("open") ? `data-michi-open="true"` : "",
      q.get("position") ? `data-michi-position="${esc(q.get("position")!)}"` : "",
      q.get("offset") ? `data-michi-offset="${esc(q.get("offset")!)}"` : "",
      "async",
    ]
      .filter(Boolean)
      .join(" ");
  // The snippet a site may add to call the API before the loader has arrived.
  const queue = q.get("queue")
    ? `<script${n}>window.michi=window.michi||function(){(window.michi.q=window.michi.q||[]).push([].slice.call(arguments))};michi("open");</script>`
    : "";
  // A signed-in visitor: the token the site's server signed, handed over before the loader arrives.
  const identify = q.get("identify")
    ? `<script${n}>window.michi=window.michi||function(){(window.michi.q=window.michi.q||[]).push([].slice.call(arguments))};michi("identify", ${JSON.stringify(q.get("identify")).replace(/</g, "\\u003c")});</script>`
    : "";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host shop</title>
${
  // A strict-CSP site has no inline style or handler of its own (they would not run), so every CSP report on
  // that page is about the widget.
  nonce
    ? ""
    : "<style>button, a { font-size: 16px } /* host CSS that must not reach the launcher */ button { background: hotpink !important; }</style>"
}
${hostile && Object.hasOwn(HOSTILE_HEAD, hostile) ? HOSTILE_HEAD[hostile].replace(/<script>/g, `<script${n}>`) : ""}
</head>
<body>
<main>
<h1>Host shop</h1>
<p>A customer's page. <a href="#menu" id="menu-link">Our menu</a></p>
<button type="button" id="chat-cta"${nonce ? "" : ` onclick="michi('open'${keys[0] ? `, '${esc(keys[0])}'` : ""})"`}>Chat with us</button>
<ul id="events"></ul>
</main>
${hostile === "banner" ? BANNER : ""}
<script${n}>
for (const name of ["michi:open", "michi:close"])
  addEventListener(name, (e) => {
    const li = document.createElement("li");
    li.textContent = name + " " + e.detail.key;
    document.getElementById("events").append(li);
  });
</script>
${identify}
${queue}
${keys.map((k) => `<script${n} ${attrs(k)}></script>`).join("\n")}
</body>
</html>`;
}

/** Addresses on a host page that runs elsewhere (the e2e world starts them; the specs only need URLs). */
export function hostPageAt(origin: string): Pick<HostPage, "origin" | "url"> {
  return {
    origin,
    url(params = {}, path = "/") {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) q.append(k, one);
      return `${origin}${path}?${q}`;
    },
  };
}

/**
 * Listens on port 0. `appUrl` is read per request: the e2e world starts its host pages before the app, because
 * the tenants it seeds must allow their origins.
 */
export async function startHostPage(opts: { appUrl: string | (() => string) }): Promise<HostPage> {
  const appUrl = typeof opts.appUrl === "string" ? () => opts.appUrl as string : opts.appUrl;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname !== "/" && url.pathname !== "/second") {
      res.writeHead(404).end();
      return;
    }
    const headers: Record<string, string> = {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    };
    let nonce = "";
    if (url.searchParams.get("hostile") === "csp") {
      nonce = randomBytes(16).toString("base64url");
      headers["content-security-policy"] = hostileCsp(appUrl(), nonce);
    }
    res.writeHead(200, headers);
    res.end(hostPageHtml(appUrl(), url.searchParams, nonce));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    ...hostPageAt(`http://localhost:${port}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
