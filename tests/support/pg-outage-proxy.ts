import net from "node:net";

// A TCP proxy in front of Postgres that can play an outage: every open connection is cut and new ones are
// refused until the outage ends. Listens on port 0. (bench/lib/pg-proxy.ts also counts statements; tests
// need only the outage.)

export type PgOutageProxy = {
  /** The database URL with host and port replaced by the proxy's. */
  url: string;
  /** Cuts every connection now and refuses new ones for `ms`, or until `restore()` when `ms` is omitted. */
  drop(ms?: number): void;
  restore(): void;
  /** Connections refused since the start: proof that the outage was met. */
  refused(): number;
  /** Resolves when the proxy has refused `n` more connections. */
  refusals(n: number): Promise<void>;
  /**
   * Lets the next commit through to Postgres but cuts the client before the answer comes back: the commit
   * happens, the client only sees its connection die. A commit is a COMMIT, or the Sync that ends the
   * extended-protocol call of michi_finish_turn (one statement outside a transaction commits at its Sync).
   */
  loseNextCommitAck(): void;
  /** Commits whose acknowledgement was cut so far. */
  acksLost(): number;
  close(): Promise<void>;
};

export async function startPgOutageProxy(databaseUrl: string): Promise<PgOutageProxy> {
  const target = new URL(databaseUrl);
  const pairs = new Set<[net.Socket, net.Socket]>();
  let refuseUntil = 0;
  let refused = 0;
  let waiters: { at: number; resolve: () => void }[] = [];
  let loseCommitAck = false;
  let acksLost = 0;
  // A simple-protocol Query message whose text is `commit` (type 'Q', length 11, "commit\0").
  const COMMIT = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 11]), Buffer.from("commit\0")]);
  // The end-of-turn statement (its Parse or Bind names it) and the Sync message (type 'S', length 4).
  const FINISH = Buffer.from("michi_finish_turn");
  const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
  let finishSeen = false;
  const cutAll = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };

  const server = net.createServer((client) => {
    if (Date.now() < refuseUntil) {
      refused++;
      client.destroy();
      for (const w of waiters.filter((x) => x.at <= refused)) w.resolve();
      waiters = waiters.filter((x) => x.at > refused);
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // After a lost commit ack the pair is already gone: Postgres gets an orderly end after the commit (TCP
    // delivers the commit before the FIN), so it runs the commit and then sees the client leave.
    client.on("error", end).on("close", () => (pairs.has(pair) ? end() : upstream.end()));
    upstream.on("error", end).on("close", end);
    upstream.pipe(client);
    client.on("data", (d: Buffer) => {
      upstream.write(d);
      if (loseCommitAck && d.includes(FINISH)) finishSeen = true;
      if (loseCommitAck && (d.includes(COMMIT) || (finishSeen && d.includes(SYNC)))) {
        loseCommitAck = false;
        finishSeen = false;
        acksLost++;
        // Only the client side goes: Postgres still reads and runs the commit, and its answer is lost.
        upstream.unpipe(client);
        pairs.delete(pair);
        client.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    drop(ms) {
      refuseUntil = ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms;
      cutAll();
    },
    restore() {
      refuseUntil = 0;
    },
    refused: () => refused,
    refusals: (n) => new Promise<void>((resolve) => waiters.push({ at: refused + n, resolve })),
    acksLost: () => acksLost,
    loseNextCommitAck() {
      loseCommitAck = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        server.close(() => resolve());
      }),
  };
}
