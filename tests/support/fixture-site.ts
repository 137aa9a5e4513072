import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";

// A tenant's "own site" for tests: an https server on 127.0.0.1 with a certificate for `localhost` signed by a
// throwaway CA. Packs reach it only through the operator allowlist (MICHI_FETCH_ALLOW_HOSTS=localhost:PORT)
// and the extra CA (MICHI_FETCH_EXTRA_CA), exactly as an intranet deployment would.

export type FixtureRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** The request's body as text (a pack's POST); "" for a GET. */
  body: string;
};
export type FixtureReply = { status?: number; body: unknown; headers?: Record<string, string> };

const SPECIAL = Symbol("fixture-special");
type Special =
  | { [SPECIAL]: "redirect"; location: string; status: number }
  | { [SPECIAL]: "stream"; bytes: number; chunk: number }
  | { [SPECIAL]: "hang" }
  | { [SPECIAL]: "trickle"; everyMs: number };

/** A route answering with a redirect to `location` (absolute or relative). */
export function redirectTo(location: string, status = 302): Special {
  return { [SPECIAL]: "redirect", location, status };
}

/** A route streaming `bytes` of a never-ending JSON string, in chunks, without a Content-Length. */
export function hugeBody(bytes: number, chunk = 16 * 1024): Special {
  return { [SPECIAL]: "stream", bytes, chunk };
}

/** A route that accepts the request and never answers (for timeouts). */
export function hang(): Special {
  return { [SPECIAL]: "hang" };
}

/** A route that answers 200 at once, then sends its body one byte every `everyMs`, never ending it. */
export function trickle(everyMs = 100): Special {
  return { [SPECIAL]: "trickle", everyMs };
}

/** A JSON body to answer with, a special route, or a function of the request. */
export type FixtureRoute =
  | ((req: FixtureRequest) => FixtureReply | Special)
  | string
  | number
  | boolean
  | null
  | object;

export type FixtureSite = {
  /** https://localhost:PORT */
  origin: string;
  /** localhost:PORT, for MICHI_FETCH_ALLOW_HOSTS */
  host: string;
  port: number;
  /** The test CA's certificate, for MICHI_FETCH_EXTRA_CA. */
  caPem: string;
  /** Every request received, in order. */
  requests: FixtureRequest[];
  close(): Promise<void>;
};

function isSpecial(v: unknown): v is Special {
  return typeof v === "object" && v !== null && SPECIAL in v;
}

export async function certificates(): Promise<{ caPem: string; key: string; cert: string }> {
  // A distinct name per CA: with two fixture sites trusted at once, equal names would confuse chain building.
  const ca = await generate(
    [{ name: "commonName", value: `michi-chat test CA ${randomBytes(4).toString("hex")}` }],
    {
      keyType: "ec",
      algorithm: "sha256",
      extensions: [
        { name: "basicConstraints", cA: true, critical: true },
        { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    },
  );
  const leaf = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }] },
    ],
  });
  return { caPem: ca.cert, key: leaf.private, cert: leaf.cert };
}

export async function startFixtureSite(opts: {
  routes: Record<string, FixtureRoute>;
  port?: number;
}): Promise<FixtureSite> {
  const { caPem, key, cert } = await certificates();
  const requests: FixtureRequest[] = [];
  const open = new Set<ServerResponse>();

  const server = createServer({ key, cert }, (req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(parts).toString("utf8")));
  });
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", "https://localhost");
    const fr: FixtureRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    requests.push(fr);
    open.add(res);
    res.on("close", () => open.delete(res));
    const route = Object.hasOwn(opts.routes, url.pathname) ? opts.routes[url.pathname] : undefined;
    if (route === undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    let reply: unknown = route;
    if (typeof route === "function") reply = (route as (r: FixtureRequest) => FixtureReply | Special)(fr);
    else if (!isSpecial(route)) reply = { body: route };
    if (isSpecial(reply)) {
      const s = reply;
      if (s[SPECIAL] === "hang") return;
      if (s[SPECIAL] === "trickle") {
        res.writeHead(200, { "content-type": "text/html" });
        const timer = setInterval(() => res.write(" "), s.everyMs);
        res.on("close", () => clearInterval(timer));
        res.on("error", () => {});
        return;
      }
      if (s[SPECIAL] === "redirect") {
        res.writeHead(s.status, { location: s.location }).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"padding":"');
      let sent = 0;
      const pump = () => {
        while (sent < s.bytes) {
          sent += s.chunk;
          if (!res.write("x".repeat(s.chunk))) return void res.once("drain", pump);
        }
        res.end('"}');
      };
      res.on("error", () => {});
      pump();
      return;
    }
    const r = reply as FixtureReply;
    const out = typeof r.body === "string" || Buffer.isBuffer(r.body) ? r.body : JSON.stringify(r.body);
    res.writeHead(r.status ?? 200, { "content-type": "application/json", ...(r.headers ?? {}) }).end(out);
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://localhost:${port}`,
    host: `localhost:${port}`,
    port,
    caPem,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
