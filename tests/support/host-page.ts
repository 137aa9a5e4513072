import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A customer's website for the widget e2e specs: a plain page on its own origin (another port) that embeds
// public/widget.js with the one-line snippet. Query parameters choose what the snippet carries:
//   ?key=K (repeatable)  &lang=ja  &open=1  &position=left  &queue=1 (calls michi("open") before the loader)

export type HostPage = {
  origin: string;
  url(params?: Record<string, string | string[]>): string;
  close(): Promise<void>;
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function hostPageHtml(appUrl: string, q: URLSearchParams): string {
  const keys = q.getAll("key");
  const attrs = (key: string) =>
    [
      `src="${esc(appUrl)}/widget.js"`,
      `data-michi-key="${esc(key)}"`,
      q.get("lang") ? `data-michi-lang="${esc(q.get("lang")!)}"` : "",
      q.get("open") ? `data-michi-open="true"` : "",
      q.get("position") ? `data-michi-position="${esc(q.get("position")!)}"` : "",
      "async",
    ]
      .filter(Boolean)
      .join(" ");
  // The snippet a site may add to call the API before the loader has arrived.
  const queue = q.get("queue")
    ? `<script>window.michi=window.michi||function(){(window.michi.q=window.michi.q||[]).push([].slice.call(arguments))};michi("open");</script>`
    : "";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host shop</title>
<style>button, a { font-size: 16px } /* host CSS that must not reach the launcher */ button { background: hotpink !important; }</style>
</head>
<body>
<main>
<h1>Host shop</h1>
<p>A customer's page. <a href="#menu" id="menu-link">Our menu</a></p>
<button type="button" id="chat-cta" onclick="michi('open'${keys[0] ? `, '${esc(keys[0])}'` : ""})">Chat with us</button>
<ul id="events"></ul>
</main>
<script>
for (const name of ["michi:open", "michi:close"])
  addEventListener(name, (e) => {
    const li = document.createElement("li");
    li.textContent = name + " " + e.detail.key;
    document.getElementById("events").append(li);
  });
</script>
${queue}
${keys.map((k) => `<script ${attrs(k)}></script>`).join("\n")}
</body>
</html>`;
}

/** Addresses on a host page that runs elsewhere (the e2e world starts them; the specs only need URLs). */
export function hostPageAt(origin: string): Pick<HostPage, "origin" | "url"> {
  return {
    origin,
    url(params = {}) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) q.append(k, one);
      return `${origin}/?${q}`;
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
    if (url.pathname !== "/") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(hostPageHtml(appUrl(), url.searchParams));
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
