import { describe, expect, it } from "vitest";
import {
  checkUrlAtSave,
  checkUrlShape,
  isAllowlisted,
  isPublicUnicast,
  type LookupFn,
} from "@/lib/security/url-policy";

const publicDns: LookupFn = async () => [{ address: "93.184.216.34", family: 4 }];
const loopDns: LookupFn = async () => [{ address: "127.0.0.1", family: 4 }];
const noDns: LookupFn = async () => {
  throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
};
const SITE = ["michi-cafe.com", "http://localhost:5173"];

describe("isPublicUnicast", () => {
  it.each([
    ["8.8.8.8", true],
    ["93.184.216.34", true],
    ["2606:4700:4700::1111", true],
    ["2a00:1450:4001:80b::200e", true],
    ["64:ff9b::808:808", true], // DNS64 of a public address
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.31.255.255", false],
    ["192.168.0.1", false],
    ["100.64.0.1", false],
    ["100.100.100.200", false],
    ["169.254.169.254", false],
    ["168.63.129.16", false], // Azure WireServer
    ["64:ff9b::a83f:8110", false], // the same through NAT64
    ["168.63.129.15", true],
    ["168.63.129.17", true],
    ["0.0.0.0", false],
    ["0.1.2.3", false],
    ["224.0.0.251", false],
    ["255.255.255.255", false],
    ["192.0.2.1", false],
    ["198.18.0.1", false],
    ["240.0.0.1", false],
    ["::", false],
    ["::1", false],
    ["::ffff:8.8.8.8", false],
    ["::ffff:127.0.0.1", false],
    ["::7f00:1", false],
    ["64:ff9b::7f00:1", false],
    ["64:ff9b:1::808:808", false],
    ["2002:808:808::1", false],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false],
    ["2001:db8::1", false],
    ["fd00:ec2::254", false],
    ["fe80::1", false],
    ["ff02::1", false],
    ["127.1", false],
    ["not an ip", false],
  ])("%s → %s", (ip, expected) => {
    expect(isPublicUnicast(ip)).toBe(expected);
  });
});

describe("checkUrlAtSave", () => {
  it("normalises an accepted URL so packs can append a path", async () => {
    const check = (u: string) => checkUrlAtSave(u, { siteDomains: SITE, allowHosts: [], lookup: publicDns });
    expect(await check("https://michi-cafe.com/")).toEqual({ ok: true, url: "https://michi-cafe.com" });
    expect(await check("HTTPS://Shop.Michi-Cafe.COM./menu/")).toEqual({
      ok: true,
      url: "https://shop.michi-cafe.com/menu",
    });
  });

  it("shows IDN in punycode and requires it to be on the site's domains", async () => {
    const site = ["xn--caf-dma.example"]; // café.example
    expect(
      await checkUrlAtSave("https://café.example/", { siteDomains: site, allowHosts: [], lookup: publicDns }),
    ).toEqual({
      ok: true,
      url: "https://xn--caf-dma.example",
    });
  });

  it("does not let an origin-style site entry widen what url fields may fetch", async () => {
    const r = await checkUrlAtSave("https://localhost:5173/", {
      siteDomains: SITE,
      allowHosts: [],
      lookup: loopDns,
    });
    expect(r.ok).toBe(false);
  });

  it("explains each refusal", async () => {
    const msg = async (u: string, lookup = publicDns) => {
      const r = await checkUrlAtSave(u, { siteDomains: SITE, allowHosts: [], lookup });
      return r.ok ? "ok" : r.message;
    };
    expect(await msg("michi-cafe.com")).toBe("URLs must start with https://");
    expect(await msg("https://michi-cafe.com:444")).toBe("Ports are not allowed");
    expect(await msg("https://michi-cafe.com/?page=1")).toMatch(/\? or #/);
    expect(await msg("https://user:pw@michi-cafe.com")).toMatch(/user name or password/);
    expect(await msg("https://93.184.216.34/")).toMatch(/not an IP address/);
    expect(await msg("https://cafe")).toMatch(/public domain name/);
    expect(await msg("https://api.michi-cafe.com", loopDns)).toBe("This host resolves to a private address");
    expect(await msg("https://gone.michi-cafe.com", noDns)).toBe("We could not find this host name");
    expect(await msg("https://other.example")).toBe(
      "This address is not on your site's domains (Site & embed)",
    );
  });

  // Issue 13, finding 6: the checks used to read the authority as the text after "https://", so an extra
  // slash hid the port, user info and percent-encoding from them; the WHATWG parser skips the slashes.
  it.each([
    ["https:///michi-cafe.com:8443/", "Ports are not allowed"],
    ["https:////michi-cafe.com:8443/menu", "Ports are not allowed"],
    ["https:///michi-cafe.com:443/", "Ports are not allowed"],
    ["https://michi-cafe.com:443/", "Ports are not allowed"],
    ["https:///user:pw@michi-cafe.com/", "Remove the user name or password from the address"],
    ["https:///evil.example@michi-cafe.com/", "Remove the user name or password from the address"],
    ["https:///michi%2Dcafe.com/", "This is not a valid web address"],
    [
      "https:///michi-cafe.com/",
      "Write the address with two slashes after https: (like https://shop.example.com/menu)",
    ],
    [
      "https:michi-cafe.com/",
      "Write the address with two slashes after https: (like https://shop.example.com/menu)",
    ],
    [
      "https:/michi-cafe.com/",
      "Write the address with two slashes after https: (like https://shop.example.com/menu)",
    ],
    ["https:///127.0.0.1/", "Use a domain name, not an IP address"],
    ["https:///localhost/", "Use a public domain name (like shop.example.com)"],
    ["HTTPS:///MICHI-CAFE.COM:8443", "Ports are not allowed"],
  ])("refuses %j at save: %s", async (u, message) => {
    const r = await checkUrlAtSave(u, { siteDomains: SITE, allowHosts: [], lookup: publicDns });
    expect(r).toEqual({ ok: false, message });
  });

  it("reads the port from the parsed URL, also for the allowlist", () => {
    expect(checkUrlShape("https:///localhost:9/", ["localhost:9"]).ok).toBe(false);
    expect(checkUrlShape("https:///localhost:9/", []).ok).toBe(false);
  });
});

describe("the operator allowlist", () => {
  it("relaxes exactly the named host and port, nothing else", async () => {
    const allow = ["localhost:8443", "intranet.corp"];
    const check = (u: string) => checkUrlAtSave(u, { siteDomains: [], allowHosts: allow, lookup: loopDns });
    expect(await check("https://localhost:8443/api")).toEqual({
      ok: true,
      url: "https://localhost:8443/api",
    });
    expect(await check("https://intranet.corp/")).toEqual({ ok: true, url: "https://intranet.corp" });
    expect((await check("https://localhost:8444/api")).ok).toBe(false);
    expect((await check("https://localhost/api")).ok).toBe(false);
    expect((await check("https://intranet.corp:8443/")).ok).toBe(false);
    expect((await check("https://other.corp/")).ok).toBe(false);
    // https stays mandatory even for allowlisted hosts.
    expect((await check("http://localhost:8443/api")).ok).toBe(false);
  });

  it("matches host and port precisely", () => {
    expect(isAllowlisted("localhost", "8443", ["localhost:8443"])).toBe(true);
    expect(isAllowlisted("LOCALHOST", "8443", ["localhost:8443"])).toBe(true);
    expect(isAllowlisted("localhost", "", ["localhost:8443"])).toBe(false);
    expect(isAllowlisted("::1", "8443", ["[::1]:8443"])).toBe(true);
    expect(isAllowlisted("evil-localhost", "8443", ["localhost:8443"])).toBe(false);
  });

  it("is what lets a shape check accept a private name at all", () => {
    expect(checkUrlShape("https://localhost:9/", []).ok).toBe(false);
    expect(checkUrlShape("https://localhost:9/", ["localhost:9"]).ok).toBe(true);
  });
});
