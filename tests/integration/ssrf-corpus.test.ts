import { connect, createServer, type Server, type Socket } from "node:net";
import { type buildConnector, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BlockedAddressError,
  createGuardedAgent,
  createGuardedFetcher,
  ToolWorldError,
} from "@/lib/security/fetch";
import { checkUrlAtSave, defaultLookup, type LookupFn } from "@/lib/security/url-policy";
import { type FixtureRoute, redirectTo, startFixtureSite } from "../support/fixture-site";

// Every URL an attacker (or a careless admin) might type, tried at save time and at connect time. Nothing may
// open a connection: the dialer behind the policy records every attempt, and a real TCP listener on loopback
// proves the connect-time layer refuses on its own, even when the text checks are bypassed.

const SITE = ["michi-cafe.com"];
const PUBLIC = "93.184.216.34";

// DNS as an attacker controls it: names on the tenant's own domain pointing inside.
const ANSWERS: Record<string, string[]> = {
  "internal.michi-cafe.com": ["10.0.0.5"],
  "loop.michi-cafe.com": ["127.0.0.1"],
  "meta.michi-cafe.com": ["169.254.169.254"],
  "v6loop.michi-cafe.com": ["::1"],
  "mapped.michi-cafe.com": ["::ffff:10.0.0.1"],
  "mixed.michi-cafe.com": [PUBLIC, "10.0.0.1"],
  "cgnat.michi-cafe.com": ["100.64.1.1"],
  "nat64.michi-cafe.com": ["64:ff9b::a00:1"],
  "teredo.michi-cafe.com": ["2001::1"],
  "sixtofour.michi-cafe.com": ["2002:a00:1::1"],
  "ula.michi-cafe.com": ["fd12:3456::1"],
  "zero.michi-cafe.com": ["0.0.0.0"],
  "alibaba.michi-cafe.com": ["100.100.100.200"],
  "azure.michi-cafe.com": ["168.63.129.16"],
  "ec2v6.michi-cafe.com": ["fd00:ec2::254"],
  "public.michi-cafe.com": [PUBLIC],
};

/** Unknown names resolve to loopback: the worst an attacker could arrange. */
const lookup: LookupFn = async (host) =>
  (ANSWERS[host] ?? ["127.0.0.1"]).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

const CORPUS: string[] = [
  // IPv4 in every spelling
  "https://127.0.0.1/",
  "https://2130706433/",
  "https://0177.0.0.1/",
  "https://0x7f.0x0.0x0.0x1/",
  "https://0x7f000001/",
  "https://127.1/",
  "https://127.0.1/",
  "https://0/",
  "https://0.0.0.0/",
  "https://2852039166/latest/meta-data/",
  "https://0251.0376.0251.0376/",
  "https://0xa9fea9fe/",
  // IPv6 literals, mapped and embedded
  "https://[::]/",
  "https://[::1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:7f00:1]/",
  "https://[::ffff:169.254.169.254]/",
  "https://[::127.0.0.1]/",
  "https://[::a9fe:a9fe]/",
  "https://[64:ff9b::7f00:1]/",
  "https://[64:ff9b::a9fe:a9fe]/",
  "https://[64:ff9b:1::a00:1]/",
  "https://[2002:7f00:1::]/",
  "https://[2002:a9fe:a9fe::]/",
  "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
  "https://[fe80::1]/",
  "https://[fc00::1]/",
  // link-local, metadata, CGNAT, private, multicast, reserved
  "https://169.254.169.254/latest/meta-data/",
  "https://[fd00:ec2::254]/latest/meta-data/",
  "https://100.100.100.200/latest/meta-data/",
  "https://168.63.129.16/machine?comp=goalstate",
  "https://[64:ff9b::a83f:8110]/",
  "https://169.254.0.1/",
  "https://100.64.0.1/",
  "https://100.127.255.254/",
  "https://10.0.0.1/",
  "https://172.16.0.1/",
  "https://192.168.1.1/",
  "https://224.0.0.1/",
  "https://255.255.255.255/",
  "https://240.0.0.1/",
  // names on the tenant's domain resolving inside (injected resolver)
  "https://internal.michi-cafe.com/",
  "https://loop.michi-cafe.com/",
  "https://meta.michi-cafe.com/",
  "https://v6loop.michi-cafe.com/",
  "https://mapped.michi-cafe.com/",
  "https://mixed.michi-cafe.com/",
  "https://cgnat.michi-cafe.com/",
  "https://nat64.michi-cafe.com/",
  "https://teredo.michi-cafe.com/",
  "https://sixtofour.michi-cafe.com/",
  "https://ula.michi-cafe.com/",
  "https://zero.michi-cafe.com/",
  "https://alibaba.michi-cafe.com/",
  "https://azure.michi-cafe.com/machine?comp=goalstate",
  "https://azure.michi-cafe.com/",
  "https://ec2v6.michi-cafe.com/",
  // local names
  "https://localhost/",
  "https://localhost./",
  "https://intranet/",
  "https://printer.local/",
  "https://db.internal/",
  "https://app.localhost/",
  "https://metadata.google.internal/computeMetadata/v1/",
  // user info and parser confusion
  "https://michi-cafe.com@evil.com/",
  "https://evil.com#@michi-cafe.com/",
  "https://evil.com\\@michi-cafe.com/",
  "https://michi-cafe.com:pass@127.0.0.1/",
  "https://evil.com?@michi-cafe.com/",
  "https://michi-cafe.com%2f@evil.com/",
  "https://%31%32%37.0.0.1/",
  // look-alikes and suffix tricks
  "https://michі-cafe.com/",
  "https://мichi-cafe.com/",
  "https://michi-cafe.com.evil.com/",
  "https://michi-cafe.co/",
  // trailing dots
  "https://127.0.0.1./",
  "https://internal.michi-cafe.com./",
  "https://loop.michi-cafe.com../",
  // explicit ports
  "https://michi-cafe.com:8443/",
  "https://michi-cafe.com:22/",
  "https://michi-cafe.com:443/",
  "https://127.0.0.1:6379/",
  // schemes
  "http://michi-cafe.com/",
  "HTTP://169.254.169.254/",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "ftp://michi-cafe.com/",
  "gopher://127.0.0.1:6379/_FLUSHALL",
  "//michi-cafe.com/",
  "data:application/json,{}",
];

type Attempt = { hostname: string; port: string };

/** A dialer that records and refuses: if the policy ever lets a case through, the attempt is on record. */
function recordingDialer(attempts: Attempt[]): buildConnector.connector {
  return (options, callback) => {
    attempts.push({ hostname: options.hostname, port: String(options.port) });
    callback(new Error("test dialer: connections are not allowed here"), null);
  };
}

describe("SSRF corpus", () => {
  it("has at least 60 distinct cases", () => {
    expect(new Set(CORPUS).size).toBe(CORPUS.length);
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
  });

  it("accepts an ordinary public address on the site (control)", async () => {
    expect(
      await checkUrlAtSave("https://public.michi-cafe.com/", { siteDomains: SITE, allowHosts: [], lookup }),
    ).toEqual({
      ok: true,
      url: "https://public.michi-cafe.com",
    });
  });

  it.each(CORPUS)("refuses at save time: %s", async (url) => {
    const result = await checkUrlAtSave(url, { siteDomains: SITE, allowHosts: [], lookup });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
  });

  it.each(CORPUS)("refuses at connect time without dialling: %s", async (url) => {
    const attempts: Attempt[] = [];
    const f = createGuardedFetcher({ allowHosts: [], lookup, rawConnect: recordingDialer(attempts) });
    const err = await f.getJson(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolWorldError);
    expect(attempts).toEqual([]);
    await f.close();
  });

  it("gives admins the messages they can act on", async () => {
    const msg = async (url: string) => {
      const r = await checkUrlAtSave(url, { siteDomains: SITE, allowHosts: [], lookup });
      return r.ok ? "ok" : r.message;
    };
    expect(await msg("http://michi-cafe.com/")).toBe("URLs must start with https://");
    expect(await msg("https://michi-cafe.com:8443/")).toBe("Ports are not allowed");
    expect(await msg("https://internal.michi-cafe.com/")).toBe("This host resolves to a private address");
    expect(await msg("https://michi-cafe.com.evil.com/")).toBe(
      "This address is not on your site's domains (Site & embed)",
    );
  });
});

describe("DNS rebinding", () => {
  it("passes the save check with a public answer, then refuses the private answer at connect", async () => {
    let calls = 0;
    const rebinding: LookupFn = async () => {
      calls += 1;
      return [{ address: calls === 1 ? PUBLIC : "127.0.0.1", family: 4 }];
    };
    const saved = await checkUrlAtSave("https://api.michi-cafe.com/", {
      siteDomains: SITE,
      allowHosts: [],
      lookup: rebinding,
    });
    expect(saved.ok).toBe(true);
    const attempts: Attempt[] = [];
    const f = createGuardedFetcher({
      allowHosts: [],
      lookup: rebinding,
      rawConnect: recordingDialer(attempts),
    });
    await expect(f.getJson("https://api.michi-cafe.com/api/hours/")).rejects.toThrow(/not allowed/);
    expect(calls).toBe(2);
    expect(attempts).toEqual([]);
    await f.close();
  });
});

describe("the connect-time layer on its own (text checks bypassed)", () => {
  let listener: Server;
  let port = 0;
  const seen: Socket[] = [];

  beforeAll(async () => {
    listener = createServer((socket) => {
      seen.push(socket);
      socket.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", () => r()));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => listener.close(() => r())));

  // The dialer behind the policy really connects, to whatever address the policy approved, but on the
  // listener's port: if any spelling got through, the loopback listener would see it.
  const toListener: buildConnector.connector = (o, cb) => {
    const socket = connect({ host: o.hostname, port });
    socket.once("connect", () => cb(new Error("test: reached the listener"), null));
    socket.once("error", (e) => cb(e, null));
  };

  const directly = async (url: string, allowHosts: string[] = [], resolver: LookupFn = lookup) => {
    // undici's own fetch with the guarded agent: nothing but the connector stands in the way.
    const agent = createGuardedAgent({ allowHosts, lookup: resolver, rawConnect: toListener });
    const err = await undiciFetch(url, { dispatcher: agent }).then(
      () => null,
      (e: unknown) => e,
    );
    await agent.close();
    return err as Error & { cause?: unknown };
  };

  const loopbackSpellings = [
    "https://127.0.0.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://127.1/",
    "https://0177.0.0.1/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://localhost/",
    "https://loop.michi-cafe.com/",
    "https://mixed.michi-cafe.com/",
  ];

  it("refuses every loopback spelling before a TCP connection is made", async () => {
    for (const url of loopbackSpellings) {
      // localhost goes through the real resolver.
      const err = await directly(url, [], url.includes("localhost") ? defaultLookup : lookup);
      expect(err, url).toBeTruthy();
      expect(err.cause, url).toBeInstanceOf(BlockedAddressError);
    }
    // A resolver that answers public first and private at connect time.
    let n = 0;
    const rebinding: LookupFn = async () => [{ address: n++ === 0 ? PUBLIC : "127.0.0.1", family: 4 }];
    await rebinding("warm-up");
    expect((await directly("https://rebind.michi-cafe.com/", [], rebinding)).cause).toBeInstanceOf(
      BlockedAddressError,
    );
    expect(seen).toHaveLength(0);
  });

  it("control: the same listener is reached when the operator allowlists it", async () => {
    await directly("https://127.0.0.1/", ["127.0.0.1"]);
    await directly("https://loop.michi-cafe.com/", ["loop.michi-cafe.com"]);
    expect(seen).toHaveLength(2);
  });
});

describe("redirects to internal hosts", () => {
  it("are refused without dialling anything but the allowlisted fixture", async () => {
    const targets = [
      "https://169.254.169.254/latest/meta-data/",
      "https://127.0.0.1/",
      "https://[::1]/",
      "https://localhost/admin",
      "https://internal.michi-cafe.com/",
      "https://10.0.0.1/",
      "http://michi-cafe.com/",
    ];
    const routes: Record<string, FixtureRoute> = {};
    targets.forEach((t, i) => {
      routes[`/r${i}`] = redirectTo(t);
    });
    const site = await startFixtureSite({ routes });
    const dialled: string[] = [];
    const { buildConnector: build } = await import("undici");
    const real = build({ ca: [site.caPem] });
    const f = createGuardedFetcher({
      allowHosts: [site.host],
      extraCaPem: site.caPem,
      lookup: async (h) => (h === "localhost" ? [{ address: "127.0.0.1", family: 4 }] : lookup(h)),
      rawConnect: (o, cb) => {
        dialled.push(`${o.servername ?? o.hostname}:${o.port}`);
        real(o, cb);
      },
    });
    for (let i = 0; i < targets.length; i++) {
      await expect(f.getJson(`${site.origin}/r${i}`), targets[i]).rejects.toThrow(/not allowed/);
    }
    expect(new Set(dialled)).toEqual(new Set([`localhost:${site.port}`]));
    expect(site.requests).toHaveLength(targets.length);
    await f.close();
    await site.close();
  });
});
