import "server-only";

// The indexing directives a page gives crawlers: `<meta name="robots">` (or our own name, `michi-chat`) and
// the X-Robots-Tag response header, which is the only way a PDF or any other file can say them. A header
// value may name the crawler it is for ("googlebot: noindex"); only unnamed values and ours apply.

export type RobotsDirectives = { noindex: boolean; nofollow: boolean };

const USER_AGENT = "michi-chat";
// Directives that carry a value after a colon, so a colon alone does not mean a user-agent prefix.
const VALUED = /^(unavailable_after|max-snippet|max-image-preview|max-video-preview)$/i;

function apply(words: Iterable<string>, into: RobotsDirectives): void {
  for (const raw of words) {
    const w = raw.trim().toLowerCase();
    if (w === "none") {
      into.noindex = true;
      into.nofollow = true;
    } else if (w === "noindex") into.noindex = true;
    else if (w === "nofollow") into.nofollow = true;
  }
}

/** Directives of meta robots contents (already filtered to robots / michi-chat) and X-Robots-Tag values. */
export function robotsDirectives(meta: string[], headerValues: string[] = []): RobotsDirectives {
  const out: RobotsDirectives = { noindex: false, nofollow: false };
  for (const content of meta) apply(content.split(","), out);
  for (const value of headerValues) {
    const named = /^\s*([A-Za-z0-9_.-]+)\s*:(.*)$/.exec(value);
    if (named?.[1] && !VALUED.test(named[1])) {
      if (named[1].toLowerCase() === USER_AGENT) apply((named[2] ?? "").split(","), out);
      continue;
    }
    apply(value.split(","), out);
  }
  return out;
}
