import "server-only";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "../env";
import { fetchDomains, hostWithin, normalizeHostname } from "./origins";

// The address policy for every URL a pack or a webhook may fetch. It runs twice: when an admin saves the
// address (checkUrlAtSave, with messages they can act on) and again inside the connection
// (src/lib/security/fetch.ts), so a DNS answer that changes between the two cannot reach an internal address.

export type LookupAddress = { address: string; family: number };
/** Resolves a host name to every A/AAAA answer. Injected by tests; DNS otherwise. */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

export const defaultLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export const MESSAGES = {
  https: "URLs must start with https://",
  invalid: "This is not a valid web address",
  slashes: "Write the address with two slashes after https: (like https://shop.example.com/menu)",
  userinfo: "Remove the user name or password from the address",
  port: "Ports are not allowed",
  ipLiteral: "Use a domain name, not an IP address",
  notPublicName: "Use a public domain name (like shop.example.com)",
  queryOrFragment: "Remove the ? or # part; the address must end with its path",
  private: "This host resolves to a private address",
  offSite: "This address is not on your site's domains (Site & embed)",
  noDns: "We could not find this host name",
} as const;

// 64:ff9b::/96 embeds a real IPv4 address (DNS64); only the IPv4 it points to decides.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

// Cloud metadata and control endpoints that sit on otherwise public unicast addresses. Azure's WireServer
// (168.63.129.16) answers every VM on that fixed address and hands out guest-agent configuration:
// https://learn.microsoft.com/en-us/azure/virtual-network/what-is-ip-address-168-63-129-16
// (169.254.169.254, 100.100.100.200 and fd00:ec2::254 already fall in link-local, CGNAT and ULA ranges.)
const METADATA_V4 = [ipaddr.parseCIDR("168.63.129.16/32")];

function isPublicV4(v4: ipaddr.IPv4): boolean {
  return v4.range() === "unicast" && !METADATA_V4.some((cidr) => v4.match(cidr));
}

/**
 * True only for addresses on the public internet. Everything else is refused: loopback, private, CGNAT,
 * link-local and cloud metadata (Azure's WireServer included), multicast, reserved, 0.0.0.0/8, IPv4-mapped/compatible IPv6, NAT64 pointing
 * inside, 6to4, Teredo, unique-local and anything outside 2000::/3.
 */
export function isPublicUnicast(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  // ipaddr.isValid accepts "127.1" and friends; only canonical literals are addresses here.
  if (isIP(bare) === 0) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(bare);
  } catch {
    return false;
  }
  if (addr.kind() === "ipv4") return isPublicV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return false;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const p = v6.parts;
    const v4 = new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
    return isPublicV4(v4);
  }
  if (!v6.match(GLOBAL_UNICAST_V6)) return false; // ::/96, ::1, fc00::/7 (incl. fd00:ec2::254), fe80::/10, ff00::/8
  return v6.range() === "unicast"; // drops 6to4, Teredo, documentation, benchmarking, ORCHID, AMT ...
}

/** Parsed allowlist entry: `host` or `host:port` (IPv6 in brackets). */
type AllowEntry = { host: string; port: string | null };

function parseAllow(entries: readonly string[]): AllowEntry[] {
  const out: AllowEntry[] = [];
  for (const raw of entries) {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(raw.trim().toLowerCase());
    if (!m) continue;
    const host = m[1]!.startsWith("[") ? m[1]!.slice(1, -1) : m[1]!.replace(/\.$/, "");
    out.push({ host, port: m[2] ?? null });
  }
  return out;
}

/** Whether the operator allowlist names exactly this host and port ("" = the default port). */
export function isAllowlisted(host: string, port: string, allowHosts: readonly string[]): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return parseAllow(allowHosts).some((e) => e.host === h && (e.port ?? "") === (port === "443" ? "" : port));
}

export type ShapeResult =
  | { ok: true; url: URL; host: string; allowlisted: boolean; ipLiteral: boolean }
  | { ok: false; message: string };

function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

const RESERVED_SUFFIXES = [".local", ".internal", ".localhost", ".home.arpa", ".lan", ".corp", ".intranet"];

/**
 * Everything that can be decided from the text alone: https, no user info, no port, no IP literal, a public
 * multi-label name. The allowlist relaxes the port, private-name and IP-literal rules for exactly its entries.
 */
export function checkUrlShape(input: string, allowHosts: readonly string[]): ShapeResult {
  const raw = input.trim();
  if (!/^https:/i.test(raw)) return { ok: false, message: MESSAGES.https };
  // Backslashes, whitespace and control characters are classic parser confusions (https://evil\@good); a real
  // address never needs them.
  if (/[\\\s]/.test(raw) || hasControlChars(raw)) return { ok: false, message: MESSAGES.invalid };
  // The WHATWG parser decides what the fetch will reach; every rule below reads its parts. It skips any
  // number of slashes after "https:", so "https:///host:8443/" is host:8443, and the raw text is cut the same
  // way to see what the parser normalises away (a typed ":443", percent-encoding in the host).
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: MESSAGES.invalid };
  }
  if (url.protocol !== "https:") return { ok: false, message: MESSAGES.https };
  const afterScheme = raw.slice("https:".length);
  const authority = afterScheme.replace(/^\/*/, "").split(/[/?#]/, 1)[0] ?? "";
  if (url.username || url.password || authority.includes("@"))
    return { ok: false, message: MESSAGES.userinfo };
  if (authority.includes("%")) return { ok: false, message: MESSAGES.invalid };
  // The parser hides a default ":443"; the raw authority still shows that a port was typed.
  const rawPort = /:(\d*)$/.exec(authority.replace(/^\[[^\]]*\]/, ""));
  const portTyped = url.port !== "" || rawPort !== null;
  const typedPort = url.port || rawPort?.[1] || "";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  const allowlisted = isAllowlisted(bare, typedPort, allowHosts);
  if (portTyped && !allowlisted) return { ok: false, message: MESSAGES.port };
  const ipLiteral = isIP(bare) !== 0;
  // Checked last, so a refusal names the real problem (port, IP, private name) first.
  const slashesOk = afterScheme.startsWith("//") && !afterScheme.startsWith("///");
  if (ipLiteral) {
    if (!allowlisted) return { ok: false, message: MESSAGES.ipLiteral };
  } else {
    const normal = normalizeHostname(bare);
    if (!normal) return { ok: false, message: MESSAGES.invalid };
    // A name made only of digits and dots is an IP in disguise that the parser did not canonicalise.
    if (/^[\d.]+$/.test(normal) || /^0x/i.test(normal)) return { ok: false, message: MESSAGES.ipLiteral };
    const privateName =
      !normal.includes(".") ||
      normal === "localhost" ||
      RESERVED_SUFFIXES.some((s) => normal.endsWith(s)) ||
      /\.\d+$/.test(normal);
    if (privateName && !allowlisted) return { ok: false, message: MESSAGES.notPublicName };
    if (!slashesOk) return { ok: false, message: MESSAGES.slashes };
    url.hostname = normal;
    return { ok: true, url, host: normal, allowlisted, ipLiteral };
  }
  if (!slashesOk) return { ok: false, message: MESSAGES.slashes };
  return { ok: true, url, host: bare, allowlisted, ipLiteral };
}

/** Resolves `host` and answers whether every address is public; the allowlist skips the address rule. */
export async function checkResolves(
  host: string,
  lookup: LookupFn,
): Promise<{ ok: true; addresses: LookupAddress[] } | { ok: false; message: string }> {
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(host);
  } catch {
    return { ok: false, message: MESSAGES.noDns };
  }
  if (addresses.length === 0) return { ok: false, message: MESSAGES.noDns };
  if (addresses.some((a) => !isPublicUnicast(a.address))) return { ok: false, message: MESSAGES.private };
  return { ok: true, addresses };
}

export type SaveCheck = { ok: true; url: string } | { ok: false; message: string };

export type SaveRules = {
  /**
   * The tenant's site domains the host must sit within (a pack's url field), or "any" for any public host
   * (a webhook endpoint lives at Zapier, Make or a CRM).
   */
  siteDomains: readonly string[] | "any";
  /** "trim": no trailing slash, so packs can append a fixed path; "as-typed": receivers may care about it. */
  path?: "trim" | "as-typed";
  allowHosts?: readonly string[];
  lookup?: LookupFn;
};

/**
 * The policy for an address an admin saves (a pack's url field, a webhook endpoint): https, no port, no user
 * info, no IP literal, no query or fragment, a public name that resolves to public addresses only, within the
 * site's domains unless the rules say "any". The operator allowlist relaxes it for exactly its entries. On
 * success `url` is the normalised form to store (punycode host, no trailing dot).
 */
export async function checkUrlAtSave(url: string, rules: SaveRules): Promise<SaveCheck> {
  const allowHosts = rules.allowHosts ?? env().MICHI_FETCH_ALLOW_HOSTS;
  const shape = checkUrlShape(url, allowHosts);
  if (!shape.ok) return shape;
  const u = shape.url;
  if (u.search || u.hash || url.trim().endsWith("?") || url.trim().endsWith("#"))
    return { ok: false, message: MESSAGES.queryOrFragment };
  if (!shape.allowlisted) {
    const onSite =
      rules.siteDomains === "any" || fetchDomains(rules.siteDomains).some((d) => hostWithin(shape.host, d));
    if (!onSite) return { ok: false, message: MESSAGES.offSite };
    const resolved = await checkResolves(shape.host, rules.lookup ?? defaultLookup);
    if (!resolved.ok) return resolved;
  }
  const path = rules.path === "as-typed" ? u.pathname : u.pathname.replace(/\/+$/, "");
  return { ok: true, url: `${u.origin}${path}` };
}
