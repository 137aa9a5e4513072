import "server-only";
import { domainToASCII } from "node:url";

// A tenant declares its site as a list of entries. Each entry is either
//  - a bare domain ("michi-cafe.com"): allows https://michi-cafe.com and https://<any subdomain>, and is the
//    set of hosts the tenant's url fields may point to; or
//  - a full origin ("http://localhost:5173", "https://shop.example.com:8443"): allowed exactly, for local
//    development and unusual set-ups. An origin entry never widens what url fields may fetch.

export type SiteEntry = { kind: "domain"; domain: string } | { kind: "origin"; origin: string };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Lower-cases, strips one trailing dot and converts IDN to punycode. Returns null for anything not a hostname. */
export function normalizeHostname(input: string): string | null {
  let h = input.trim().toLowerCase();
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (!h || h.length > 253) return null;
  const ascii = domainToASCII(h);
  if (!ascii) return null;
  const labels = ascii.split(".");
  return labels.every((l) => LABEL.test(l)) ? ascii : null;
}

/** Parses one site entry as typed by an admin; returns an error message fit to show them when it is not valid. */
export function parseSiteEntry(raw: string): SiteEntry | { error: string } {
  const v = raw.trim();
  if (!v) return { error: "Enter a domain such as michi-cafe.com" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return { error: `"${v}" is not a valid address` };
    }
    if (u.protocol !== "https:" && u.protocol !== "http:")
      return { error: "Only http:// and https:// origins are allowed" };
    if (u.username || u.password) return { error: "Remove the user name and password from the address" };
    if ((u.pathname !== "/" && u.pathname !== "") || u.search || u.hash) {
      return { error: "Enter only the origin, without a path (e.g. https://shop.example.com)" };
    }
    return { kind: "origin", origin: u.origin };
  }
  const host = normalizeHostname(v);
  if (!host) return { error: `"${v}" is not a valid domain name` };
  if (!host.includes(".")) return { error: "Enter a full domain name such as michi-cafe.com" };
  return { kind: "domain", domain: host };
}

export function parseSiteEntries(list: readonly string[]): SiteEntry[] {
  return list.map(parseSiteEntry).filter((e): e is SiteEntry => !("error" in e));
}

/** True when `host` equals `domain` or is one of its subdomains. */
export function hostWithin(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Whether a browser Origin header may use a tenant's widget: an exact origin entry, https on a declared domain
 * or its subdomains, or the platform's own origin (admin preview and /demo).
 */
export function originAllowed(
  origin: string | null | undefined,
  siteDomains: readonly string[],
  platformOrigin: string,
): boolean {
  if (!origin || origin === "null") return false;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.origin !== origin) return false; // a path or trailing slash is not an origin
  if (origin === new URL(platformOrigin).origin) return true;
  for (const entry of parseSiteEntries(siteDomains)) {
    if (entry.kind === "origin" && entry.origin === origin) return true;
    if (entry.kind === "domain" && u.protocol === "https:" && !u.port && hostWithin(u.hostname, entry.domain))
      return true;
  }
  return false;
}

/**
 * The one entry an owner adds so that `origin` may show the widget: its bare host where that covers it (https
 * on the default port, a name with a dot), otherwise the full origin, since a bare host never covers http or a
 * port (originAllowed). Telling a site on http://127.0.0.1:44629 to add "127.0.0.1" sent owners round in circles.
 */
export function siteEntryFor(origin: string): string {
  const u = new URL(origin);
  if (u.protocol === "https:" && !u.port) {
    const entry = parseSiteEntry(u.hostname);
    if ("kind" in entry && entry.kind === "domain") return entry.domain;
  }
  return u.origin;
}

/** Every origin a browser may frame the widget from, for a CSP frame-ancestors list. */
export function frameAncestors(siteDomains: readonly string[], platformOrigin: string): string[] {
  const out = new Set<string>([new URL(platformOrigin).origin]);
  for (const entry of parseSiteEntries(siteDomains)) {
    if (entry.kind === "origin") out.add(entry.origin);
    else {
      out.add(`https://${entry.domain}`);
      out.add(`https://*.${entry.domain}`);
    }
  }
  return [...out];
}

/** The bare domains a tenant's url fields may point to. */
export function fetchDomains(siteDomains: readonly string[]): string[] {
  return parseSiteEntries(siteDomains).flatMap((e) => (e.kind === "domain" ? [e.domain] : []));
}
