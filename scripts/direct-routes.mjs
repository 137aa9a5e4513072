// A visitor's token and chat requests, served by the production server without Next's request pipeline
// (bench/README.md). For a chat turn Next's pipeline costs about 1 ms of CPU, as much as the whole platform's
// own work: the route module's request scope, a NextRequest and a web-stream pipe of the response. Measured
// side by side at 200 visitors, calling the same compiled handlers directly takes 40% less CPU per turn.
//
// The handlers stay ordinary App Router route handlers (src/app/api/widget/...), bundled by `next build`; this
// only calls the functions the compiled route module exports, with a standard Request, and writes their
// standard Response. `npm run dev`, and any request this does not match exactly (another method, a trailing
// slash), still goes through Next; a malformed escape is answered 400 here (badRequestTarget also refuses it,
// and other targets Next mishandles, before any routing). A route belongs here only if its handler needs nothing
// of Next's request scope (cookies(), headers(), after(), redirect(), the fetch cache):
// tests/unit/direct-routes.test.ts fails when anything these routes import reaches Next or next-auth.
import path from "node:path";

/**
 * App Router paths whose route modules the production server calls directly: the two requests every visitor
 * makes, a token and then every turn. The rest of the widget API stays with Next, rare and not worth a second
 * path; the history (`conversations/[id]`) also keeps Next's gzip, the one widget answer that can be large.
 */
export const DIRECT_ROUTES = ["/api/widget/[key]/chat", "/api/widget/[key]/session"];

/**
 * Why a request target must be refused with 400 before any routing, or null. Only the origin form ("/path")
 * is served: an absolute-form line ("POST http://evil.test/x", which a client sends to a proxy) made Next
 * answer with a redirect to that foreign host, and a path starting "//" is read by browsers as a host
 * ("//evil.test/"), so a trailing-slash redirect would lead there too. A path whose percent-escapes do not
 * decode ("%E0%A4%A") made Next fail with a 500 while decoding the route's parameters.
 */
export function badRequestTarget(url) {
  if (typeof url !== "string" || !url.startsWith("/")) return "not an origin-form request target";
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  if (pathname.startsWith("//") || pathname.startsWith("/\\")) return "a path that reads as a host";
  try {
    decodeURIComponent(pathname);
  } catch {
    return "a malformed percent-escape";
  }
  return null;
}

/** The answer to a request badRequestTarget refuses (plain text, never cached, never a redirect). */
export function refuseRequestTarget(res, reason) {
  res.writeHead(400, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(`Bad request: ${reason}.\n`);
}

const malformed = () =>
  new Response("Bad request: a malformed percent-escape.\n", {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });

/** `/api/widget/[key]/chat` → a pattern with one group per dynamic segment, and the segments' names. */
export function compileRoute(route) {
  const names = [];
  const source = route
    .split("/")
    .map((part) => {
      const dynamic = /^\[(\w+)\]$/.exec(part);
      if (!dynamic) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(dynamic[1]);
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * A matcher over route modules' exported handlers: `modules` maps each route to what its module exports
 * (`{ POST, OPTIONS, … }`). `match(req)` answers the handler and params for a request it serves, or undefined.
 */
export function directRoutes(modules) {
  const compiled = Object.entries(modules).map(([route, handlers]) => ({ ...compileRoute(route), handlers }));
  return {
    match(req) {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const pathname = q < 0 ? url : url.slice(0, q);
      for (const r of compiled) {
        const m = r.pattern.exec(pathname);
        if (!m) continue;
        const handler = r.handlers[req.method ?? ""];
        if (typeof handler !== "function") return undefined;
        const params = {};
        try {
          r.names.forEach((name, i) => {
            params[name] = decodeURIComponent(m[i + 1]);
          });
        } catch {
          return { handler: malformed, params: {} };
        }
        return { handler, params };
      }
      return undefined;
    },
  };
}

/** The compiled route modules of a standalone build, loaded once at start-up: a missing one stops the server. */
export function loadDirectRoutes(dir, require) {
  const modules = {};
  for (const route of DIRECT_ROUTES) {
    const file = path.join(dir, ".next/server/app", route, "route.js");
    const userland = require(file).routeModule?.userland;
    if (!userland) throw new Error(`${file} is not an App Router route module`);
    modules[route] = userland;
  }
  return directRoutes(modules);
}

function toRequest(req, signal) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  // As Next does, the URL's origin is the Host the client asked for; a Host that makes no URL gets localhost.
  const host = req.headers.host;
  const base = host && URL.canParse(`http://${host}`) ? `http://${host}` : "http://localhost";
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", base), {
    method: req.method,
    headers,
    // The Node request itself, as Next passes it: read only if the handler reads the body, so that an unread
    // body is discarded by Node after the response and the connection stays usable for the next request.
    body: hasBody ? req : undefined,
    duplex: "half",
    signal,
  });
}

function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Calls a matched handler and writes its Response. The Request's signal aborts when the client goes away
 * before the response is complete, and the response body is cancelled then, as under Next. Rejects when the
 * handler throws or the body fails; by then the response is ended or destroyed, unless no header was sent.
 */
export async function serveDirect(req, res, { handler, params }) {
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const response = await handler(toRequest(req, abort.signal), { params: Promise.resolve(params) });
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  res.once("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch (err) {
    res.destroy(); // the client must not take a cut-off body for a whole one
    throw err;
  } finally {
    res.off("close", cancel);
  }
}
