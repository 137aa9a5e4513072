import "server-only";
import { fetchDomains, hostWithin } from "@/lib/security/origins";
import { isAllowlisted } from "@/lib/security/url-policy";

// Which addresses belong to the business's site: a host on one of its declared site domains (Site & embed),
// or an entry of the operator's allowlist. Checked on every hop of every request the crawler makes.

export function siteChecker(siteDomains: readonly string[], allowHosts: readonly string[]) {
  const domains = fetchDomains(siteDomains);
  return (u: URL): boolean => {
    const host = u.hostname.toLowerCase();
    if (isAllowlisted(host, u.port, allowHosts)) return true;
    return u.port === "" && domains.some((d) => hostWithin(host, d));
  };
}

/** Links the breadth-first crawl follows: the host (and port) the page was served from, after its redirects. */
export function sameHost(a: string, b: string): boolean {
  return new URL(a).host === new URL(b).host;
}

export function nextSyncAt(schedule: string, from = new Date()): Date | null {
  const day = 24 * 3600_000;
  if (schedule === "daily") return new Date(from.getTime() + day);
  if (schedule === "weekly") return new Date(from.getTime() + 7 * day);
  return null;
}
