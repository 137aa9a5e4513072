import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedFetcher, getJson, ToolWorldError } from "@/lib/security/fetch";
import { type FixtureSite, hang, hugeBody, redirectTo, startFixtureSite } from "../support/fixture-site";

// The success path of the guarded fetch over real TLS: a local https site reached only because the operator
// allowlist names it and the test CA is trusted, plus the ways a real site can misbehave.

let site: FixtureSite;
let other: FixtureSite;
const hours = { open: true, nextChange: "18:00", internal: "x" };

beforeAll(async () => {
  site = await startFixtureSite({
    routes: {
      "/api/hours/": hours,
      "/echo": (req) => ({
        body: {
          q: req.query.get("q"),
          accept: req.headers.accept,
          path: req.path,
          auth: req.headers.authorization ?? null,
        },
      }),
      "/to-other": () => ({ status: 302, headers: { location: `${other.origin}/echo` }, body: "" }),
      "/hop1": redirectTo("/hop2"),
      "/hop2": redirectTo("/api/hours/"),
      "/loop": redirectTo("/loop"),
      "/to-metadata": redirectTo("https://169.254.169.254/latest/meta-data/"),
      "/to-plain-http": redirectTo("http://localhost/api/hours/"),
      "/huge": hugeBody(2 * 1024 * 1024),
      "/slow": hang(),
      "/broken": () => ({ body: "{not json" }),
      "/teapot": () => ({ status: 503, body: { error: "down" } }),
    },
  });
  other = await startFixtureSite({
    routes: { "/echo": (req) => ({ body: { auth: req.headers.authorization ?? null } }) },
  });
});
afterAll(async () => {
  await site?.close();
  await other?.close();
});

const fetcher = () =>
  createGuardedFetcher({ allowHosts: [site.host], extraCaPem: site.caPem, timeoutMs: 20_000 });

async function worldError(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolWorldError);
  return (err as Error).message;
}

describe("guarded fetch against an allowlisted https fixture", () => {
  it("reads JSON over https with the test CA, sending Accept: application/json", async () => {
    const f = fetcher();
    expect(await f.getJson(`${site.origin}/api/hours/`)).toEqual(hours);
    const echo = await f.getJson(`${site.origin}/echo`);
    expect(echo.accept).toBe("application/json");
    await f.close();
  });

  it("puts query values in the query string only, encoded", async () => {
    const f = fetcher();
    const tricky = "../../admin?x=1#frag&y=@evil.com/";
    const echo = await f.getJson(`${site.origin}/echo`, { query: { q: tricky } });
    expect(echo).toMatchObject({ q: tricky, path: "/echo" });
    await f.close();
  });

  it("refuses the site without the allowlist entry, and never contacts it", async () => {
    const before = site.requests.length;
    const f = createGuardedFetcher({ allowHosts: [], extraCaPem: site.caPem });
    expect(await worldError(f.getJson(`${site.origin}/api/hours/`))).toMatch(/not allowed/);
    // An allowlist entry for another port does not cover this one.
    const g = createGuardedFetcher({ allowHosts: ["localhost:1"], extraCaPem: site.caPem });
    expect(await worldError(g.getJson(`${site.origin}/api/hours/`))).toMatch(/not allowed/);
    expect(site.requests.length).toBe(before);
    await f.close();
    await g.close();
  });

  it("fails the TLS check without the test CA", async () => {
    const f = createGuardedFetcher({ allowHosts: [site.host] });
    expect(await worldError(f.getJson(`${site.origin}/api/hours/`))).toMatch(/could not be reached/);
    await f.close();
  });

  it("follows up to three redirects, re-checking each hop", async () => {
    const f = fetcher();
    expect(await f.getJson(`${site.origin}/hop1`)).toEqual(hours);
    expect(await worldError(f.getJson(`${site.origin}/loop`))).toMatch(/too many times/);
    expect(await worldError(f.getJson(`${site.origin}/to-metadata`))).toMatch(/not allowed/);
    expect(await worldError(f.getJson(`${site.origin}/to-plain-http`))).toMatch(/not allowed/);
    await f.close();
  });

  it("sends a secret as a bearer credential to the configured origin, never across a redirect elsewhere", async () => {
    const f = createGuardedFetcher({
      allowHosts: [site.host, other.host],
      extraCaPem: `${site.caPem}\n${other.caPem}`,
      timeoutMs: 20_000,
    });
    expect((await f.getJson(`${site.origin}/echo`, { bearer: "tok-123" })).auth).toBe("Bearer tok-123");
    expect((await f.getJson(`${site.origin}/echo`)).auth).toBeNull();
    // The other origin answers, but without the credential.
    expect(await f.getJson(`${site.origin}/to-other`, { bearer: "tok-123" })).toEqual({ auth: null });
    await f.close();
  });

  it("refuses redirects entirely when maxRedirects is 0", async () => {
    const f = createGuardedFetcher({ allowHosts: [site.host], extraCaPem: site.caPem, maxRedirects: 0 });
    expect(await worldError(f.getJson(`${site.origin}/hop2`))).toMatch(/redirected/);
    await f.close();
  });

  it("aborts a streamed body past 512 KB", async () => {
    const f = fetcher();
    expect(await worldError(f.getJson(`${site.origin}/huge`))).toMatch(/larger than 512 KB/);
    await f.close();
  });

  it("turns a hang into a timeout world error", async () => {
    const f = createGuardedFetcher({ allowHosts: [site.host], extraCaPem: site.caPem, timeoutMs: 300 });
    expect(await worldError(f.getJson(`${site.origin}/slow`))).toMatch(/did not answer in time/);
    await f.close();
  });

  it("turns bad JSON, 404 and 5xx into short world errors", async () => {
    const f = fetcher();
    expect(await worldError(f.getJson(`${site.origin}/broken`))).toMatch(/valid JSON/);
    expect(await worldError(f.getJson(`${site.origin}/nope`))).toMatch(/404/);
    expect(await worldError(f.getJson(`${site.origin}/teapot`))).toMatch(/503/);
    await f.close();
  });

  it("stops when the caller's signal aborts", async () => {
    const f = fetcher();
    const ac = new AbortController();
    const p = f.getJson(`${site.origin}/slow`, { signal: ac.signal });
    ac.abort();
    expect(await worldError(p)).toMatch(/cancelled/);
    await f.close();
  });

  it("wires the default getJson from MICHI_FETCH_ALLOW_HOSTS and MICHI_FETCH_EXTRA_CA", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "michi-fetch-env-"));
    writeFileSync(path.join(dir, "ca.pem"), site.caPem);
    Object.assign(process.env, {
      MICHI_FETCH_ALLOW_HOSTS: `other.example, ${site.host}`,
      MICHI_FETCH_EXTRA_CA: path.join(dir, "ca.pem"),
      MICHI_DATA_DIR: dir,
      MICHI_SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
      MICHI_AUTH_SECRET: "fetch-test-auth-secret-0123456789abcdef",
    });
    const g = globalThis as { __michiEnv?: unknown; __michiFetcher?: { close(): Promise<void> } };
    g.__michiEnv = undefined;
    g.__michiFetcher = undefined;
    expect(await getJson(`${site.origin}/api/hours/`)).toEqual(hours);
    // Read through a cast: TypeScript narrowed the property to undefined after the reset above.
    await (g.__michiFetcher as { close(): Promise<void> } | undefined)?.close();
    g.__michiFetcher = undefined;
  });
});
