import net from "node:net";

// A TCP proxy in front of Postgres, for two jobs: count the statements the server sends (by reading the
// frontend side of the wire protocol: a simple Query 'Q' or an extended-protocol Execute 'E' is one statement
// run; Parse and Bind tell which SQL an Execute runs), and simulate a database outage by dropping every connection and refusing new ones for a while.

export type PgProxy = {
  url: string;
  /** Statements seen since the last reset, by their SQL text (whitespace collapsed, cut at 240 characters). */
  counts(): { total: number; byText: Map<string, number> };
  resetCounts(): void;
  /** Destroys every open connection and refuses new ones for `ms`. */
  drop(ms: number): void;
  close(): Promise<void>;
};

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString("utf8", at, end < 0 ? buf.length : end), end + 1];
}

const clean = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 240);

export async function startPgProxy(targetUrl: string): Promise<PgProxy> {
  const target = new URL(targetUrl);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  const byText = new Map<string, number>();
  let total = 0;
  let refuseUntil = 0;
  const pairs = new Set<[net.Socket, net.Socket]>();

  const record = (sql: string) => {
    total++;
    const key = clean(sql);
    byText.set(key, (byText.get(key) ?? 0) + 1);
  };

  const server = net.createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    upstream.pipe(client);
    client.pipe(upstream);

    // Frontend messages: the first (startup, SSL or GSS request) has no type byte.
    let startup = true;
    let pending: Buffer = Buffer.alloc(0);
    const statements = new Map<string, string>();
    const portals = new Map<string, string>();
    client.on("data", (d: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, d]) : d;
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const len = pending.readInt32BE(0);
          if (pending.length < len) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(len);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5) break;
        const type = String.fromCharCode(pending[0]!);
        const len = pending.readInt32BE(1);
        if (pending.length < 1 + len) break;
        const msg = pending.subarray(5, 1 + len);
        if (type === "Q") record(cstring(msg, 0)[0]);
        else if (type === "P") {
          // Parse: statement name, SQL. Named statements are parsed once per connection and reused.
          const [name, at] = cstring(msg, 0);
          statements.set(name, cstring(msg, at)[0]);
        } else if (type === "B") {
          // Bind: portal name, statement name.
          const [portal, at] = cstring(msg, 0);
          portals.set(portal, statements.get(cstring(msg, at)[0]) ?? "(unknown prepared statement)");
        } else if (type === "E") record(portals.get(cstring(msg, 0)[0]) ?? "(unknown portal)");
        pending = pending.subarray(1 + len);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const addr = server.address() as net.AddressInfo;
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(addr.port);
  return {
    url: url.toString(),
    counts: () => ({ total, byText: new Map(byText) }),
    resetCounts() {
      total = 0;
      byText.clear();
    },
    drop(ms) {
      refuseUntil = Date.now() + ms;
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
