import { existsSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import { readCappedText } from "@/lib/security/body";
import {
  badRequestTarget,
  compileRoute,
  DIRECT_ROUTES,
  directRoutes,
  serveDirect,
} from "../../scripts/direct-routes.mjs";
import { deferred } from "../support/deferred";
import { lazyBody } from "../support/lazy-body";

// The production server hands a visitor's token and chat requests to their route handlers itself
// (scripts/direct-routes.mjs). What Next did for them has to hold without Next: the request as the handler
// sees it, the streamed response, a visitor who leaves mid-answer, and anything unusual left to Next.

const root = path.resolve(import.meta.dirname, "../..");

/** The files a module imports, followed through `@/` and relative paths; packages are returned as they are. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, "utf8");
  return [
    ...source.matchAll(
      /(?:^|\n)\s*(?:import|export)[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g,
    ),
  ]
    .map((m) => (m[1] ?? m[2] ?? m[3])!)
    .map((spec) => {
      if (!spec.startsWith("@/") && !spec.startsWith(".")) return spec;
      const base = spec.startsWith("@/")
        ? path.join(root, "src", spec.slice(2))
        : path.resolve(path.dirname(file), spec);
      const found = ["", ".ts", ".tsx", "/index.ts"]
        .map((ext) => base + ext)
        .find((f) => existsSync(f) && statSync(f).isFile());
      // Plain .mjs modules (src/lib/secret-paths.mjs) are walked too: they could import a package as well.
      if (!found || !/\.(tsx?|mjs)$/.test(found)) throw new Error(`${file}: cannot resolve ${spec}`);
      return found;
    });
}

function reachablePackages(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>(); // package → a file importing it
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const dep of importsOf(file)) {
      if (dep.startsWith("/")) walk(dep);
      else if (!packages.has(dep)) packages.set(dep, path.relative(root, file));
    }
  };
  walk(entry);
  return packages;
}

describe("the routes the production server serves itself", () => {
  it("are App Router routes of this project", () => {
    for (const route of DIRECT_ROUTES)
      expect(existsSync(path.join(root, "src/app", route, "route.ts"))).toBe(true);
  });

  it("reach nothing of Next or next-auth, which need Next's request scope", () => {
    for (const route of DIRECT_ROUTES) {
      const packages = reachablePackages(path.join(root, "src/app", route, "route.ts"));
      const next = [...packages].filter(([name]) => /^next(?:\/|$)|^next-auth/.test(name));
      expect(next, route).toEqual([]);
      // The walk did follow the handler into the platform's code.
      expect(packages.has("server-only"), route).toBe(true);
    }
  });
});

describe("matching a request", () => {
  const handler = async () => new Response("ok");
  const routes = directRoutes({
    "/api/widget/[key]/chat": { POST: handler, OPTIONS: handler },
    "/api/widget/[key]/conversations/[id]": { GET: handler },
  });
  const match = (method: string, url: string) => routes.match({ method, url } as http.IncomingMessage);

  it("gives the handler and the decoded segments, with or without a query", () => {
    expect(match("POST", "/api/widget/k%C3%A9y/chat")).toEqual({ handler, params: { key: "kéy" } });
    expect(match("POST", "/api/widget/abc/chat?lang=de")?.params).toEqual({ key: "abc" });
    expect(match("GET", "/api/widget/abc/conversations/c1")?.params).toEqual({ key: "abc", id: "c1" });
  });

  it("leaves to Next a method the route does not export and other paths", () => {
    expect(match("GET", "/api/widget/abc/chat")).toBeUndefined(); // Next answers 405
    expect(match("HEAD", "/api/widget/abc/conversations/c1")).toBeUndefined();
    expect(match("POST", "/api/widget/abc/chat/")).toBeUndefined(); // Next redirects
    expect(match("POST", "/api/widget/a/b/chat")).toBeUndefined();
    expect(match("POST", "/api/widget//chat")).toBeUndefined();
  });

  it("answers a malformed escape in a segment with 400 itself, instead of Next's 500", async () => {
    for (const url of [
      "/api/widget/%E0%A4%A/chat",
      "/api/widget/%/chat",
      "/api/widget/abc/conversations/%zz",
    ]) {
      const m = match(url.endsWith("chat") ? "POST" : "GET", url);
      expect(m, url).toBeDefined();
      const res = await m!.handler(new Request("http://x.test/"), { params: Promise.resolve(m!.params) });
      expect(res.status).toBe(400);
    }
  });

  it("escapes a route's literal parts", () => {
    expect(compileRoute("/api/a.b/[x]").pattern.test("/api/aXb/1")).toBe(false);
  });
});

describe("request targets refused before any routing", () => {
  it("refuses the absolute form, the authority form, '*', a path that reads as a host and a bad escape", () => {
    // The red-team corpus of docs/security.md ("Request targets").
    for (const url of [
      "http://evil.test/api/widget/k/session",
      "https://evil.test/",
      "HTTP://EVIL.TEST/admin",
      "evil.test:443",
      "*",
      "",
      "//evil.test/",
      "//evil.test/api/widget/k/chat",
      "/\\evil.test/",
      "/api/widget/%E0%A4%A/session",
      "/api/widget/k/conversations/%",
      "/signin/reset/%zz",
    ])
      expect(badRequestTarget(url), url).not.toBeNull();
  });

  it("lets ordinary paths through, escapes and odd queries included", () => {
    for (const url of ["/", "/api/widget/k%C3%A9y/chat", "/admin?q=%", "/demo?x=//evil.test", "/a//b"])
      expect(badRequestTarget(url), url).toBeNull();
  });
});

describe("serving a matched request", () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  /** A real server on port 0 whose every request goes to `handler`; errors are reported as the server would. */
  async function serve(
    handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>,
  ) {
    const errors: unknown[] = [];
    const routes = directRoutes({ "/api/widget/[key]/chat": { POST: handler } });
    server = http.createServer((req, res) => {
      req.headers["x-michi-peer"] = "10.0.0.9"; // as serve.mjs sets it, on req.headers only
      const route = routes.match(req);
      if (!route) return void res.writeHead(418).end();
      serveDirect(req, res, route).catch((err: unknown) => {
        errors.push(err);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/api/widget/k1/chat`, errors };
  }

  it("hands the handler the request as the client sent it, and the client the handler's response", async () => {
    let seen: Record<string, unknown> = {};
    const { url } = await serve(async (req, { params }) => {
      seen = {
        method: req.method,
        url: req.url,
        params: await params,
        body: await req.text(),
        type: req.headers.get("content-type"),
        peer: req.headers.get("x-michi-peer"),
        accept: req.headers.get("accept-language"),
      };
      const headers = new Headers({ "content-type": "application/json", vary: "Origin" });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response('{"ok":true}', { status: 201, headers });
    });
    const res = await fetch(`${url}?lang=ja`, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-language": "ja" },
      body: '{"message":"こんにちは"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("vary")).toBe("Origin");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual({
      method: "POST",
      url: `${url}?lang=ja`,
      params: { key: "k1" },
      body: '{"message":"こんにちは"}',
      type: "application/json",
      peer: "10.0.0.9",
      accept: "ja",
    });
  });

  it("lets a handler refuse an oversized chunked upload and still answer 413, without reading the rest", async () => {
    const { url } = await serve(async (req) => {
      try {
        await readCappedText(req, 16 * 1024);
        return new Response("read it all", { status: 200 });
      } catch (err) {
        return Response.json({ refused: isAppError(err) ? err.code : String(err) }, { status: 413 });
      }
    });
    const body = lazyBody(50 * 1024 * 1024);
    const res = await fetch(url, { method: "POST", body: body.stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ refused: "payload_too_large" });
    // The rest is never read: what the client got rid of is what the sockets on both ends could buffer.
    await new Promise((r) => setTimeout(r, 500));
    expect(body.pulled()).toBeLessThan(16 * 1024 * 1024);
  });

  it("keeps a visitor's connection usable after a refusal that left the body unread or half read", async () => {
    const { url } = await serve(async (req) => {
      if (new URL(req.url).searchParams.has("unknown")) return new Response("no such chat", { status: 404 });
      try {
        return new Response(await readCappedText(req, 16 * 1024));
      } catch {
        return new Response("too large", { status: 413 });
      }
    });
    // One keep-alive connection, as a browser reuses it for the visitor's next request.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (query: string, size: number) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(`${url}${query}`, { method: "POST", agent, timeout: 4_000 }, (res) => {
          let text = "";
          res.on("data", (d: Buffer) => {
            text += d.toString();
          });
          res.on("end", () => resolve(`${res.statusCode} ${text.slice(0, 20)}`));
        });
        req.on("timeout", () => req.destroy(new Error(`no answer to ${query}`)));
        req.on("error", reject);
        req.end(Buffer.alloc(size, 0x61));
      });
    try {
      expect(await send("?unknown", 1024 * 1024)).toBe("404 no such chat");
      expect(await send("", 10)).toBe("200 aaaaaaaaaa");
      expect(await send("", 1024 * 1024)).toBe("413 too large");
      expect(await send("", 10)).toBe("200 aaaaaaaaaa");
    } finally {
      agent.destroy();
    }
  });

  it("streams each chunk as the handler produces it", async () => {
    const { promise: held, resolve: release } = deferred();
    const { url } = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(new TextEncoder().encode("data: one\n\n"));
          await held;
          c.enqueue(new TextEncoder().encode("data: two\n\n"));
          c.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const res = await fetch(url, { method: "POST", body: "{}" });
    const reader = res.body!.getReader();
    // The first event arrives while the handler still holds the second.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n");
    release();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("aborts the request's signal and cancels the answer when the visitor goes away mid-stream", async () => {
    const events: string[] = [];
    let gone!: () => void;
    const cancelled = new Promise<void>((r) => {
      gone = r;
    });
    const { url } = await serve(async (req) => {
      req.signal.addEventListener("abort", () => events.push("aborted"));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("data: start\n\n"));
        },
        cancel() {
          events.push("cancelled");
          gone();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const client = new AbortController();
    const res = await fetch(url, { method: "POST", body: "{}", signal: client.signal });
    await res.body!.getReader().read();
    client.abort();
    await cancelled;
    expect(events.sort()).toEqual(["aborted", "cancelled"]);
  });

  it("reports a handler that throws, before anything was sent, so the server can answer 500", async () => {
    const { url, errors } = await serve(async () => {
      throw new Error("boom");
    });
    const res = await fetch(url, { method: "POST", body: "{}" });
    expect(res.status).toBe(500);
    expect(errors.map((e) => (e as Error).message)).toEqual(["boom"]);
  });

  it("cuts the connection when the answer fails half-way, so a client cannot take it for a whole one", async () => {
    const { url, errors } = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("data: part\n\n"));
          setTimeout(() => c.error(new Error("stream broke")), 20);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const res = await fetch(url, { method: "POST", body: "{}" });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(errors.map((e) => (e as Error).message)).toEqual(["stream broke"]);
  });
});
