import { describe, expect, it } from "vitest";
import { ToolWorldError } from "@/lib/errors";
import { readRobots } from "@/lib/knowledge/crawl/discover";
import type { PageFetcher, PageFetchResult } from "@/lib/security/fetch-text";

// How each answer to robots.txt is read (RFC 9309 §2.3.1.3-4): a missing file allows everything, a server
// error, 429, a timeout or a refusal means "do not crawl now" and throws with the reason in words, so the sync
// ends without touching the index. It must never come back as rules that disallow everything.

const url = "https://www.example.com/robots.txt";
function fetcher(answer: PageFetchResult | Error): PageFetcher {
  return {
    fetchPage: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
    close: async () => {},
  };
}
const read = (answer: PageFetchResult | Error) =>
  readRobots(fetcher(answer), "https://www.example.com/", () => true);

describe("readRobots", () => {
  it("gives the file's text when it answers", async () => {
    const body = Buffer.from("User-agent: *\nDisallow: /preview/\n");
    await expect(
      read({ kind: "ok", status: 200, url, contentType: "text/plain", body, etag: null, lastModified: null }),
    ).resolves.toBe("User-agent: *\nDisallow: /preview/\n");
  });

  it("reads a 4xx other than 429 as no robots.txt: everything allowed", async () => {
    for (const status of [401, 403, 404, 410])
      await expect(read({ kind: "http", status, url })).resolves.toBe("");
  });

  it("throws, in words, for a server error, a 429, a timeout and a refusal", async () => {
    const cases: [PageFetchResult | Error, string][] = [
      [{ kind: "http", status: 503, url }, "robots.txt answered HTTP 503 (a server error)"],
      [{ kind: "http", status: 500, url }, "robots.txt answered HTTP 500 (a server error)"],
      [{ kind: "http", status: 429, url }, "robots.txt answered HTTP 429 (too many requests)"],
      [
        new ToolWorldError("The site did not answer in time"),
        "could not be read (the site did not answer in time)",
      ],
      [
        { kind: "refused", reason: "blocked", message: "Use a domain name, not an IP address", url },
        "could not be read (Use a domain name, not an IP address)",
      ],
    ];
    for (const [answer, words] of cases) {
      const err = await read(answer).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolWorldError);
      expect((err as Error).message).toContain(words);
      expect((err as Error).message).toContain("The pages indexed before stay searchable");
    }
  });
});
