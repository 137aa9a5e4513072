import { describe, expect, it } from "vitest";
import { ToolWorldError } from "@/lib/errors";
import { readRobots } from "@/lib/knowledge/crawl/discover";
import { parseRobots, robotsPath } from "@/lib/knowledge/crawl/robots";
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

// RFC 9309 §2.2.2: an escaped unreserved character is the character itself; a reserved one stays escaped. The
// path collapses `//` and resolves dot segments as the server does, so no other spelling reaches a disallowed
// folder.
describe("robotsPath", () => {
  it("unescapes unreserved characters and writes other escapes in upper case", () => {
    expect(robotsPath("/k/%70rivate/")).toBe("/k/private/");
    expect(robotsPath("/%7euser/%41-%5f.%2E~")).toBe("/~user/A-_..~");
    expect(robotsPath("/a%2fb/%c3%a9")).toBe("/a%2Fb/%C3%A9");
    expect(robotsPath("/search?q=%61%26b")).toBe("/search?q=a%26b");
  });

  it("collapses runs of slashes and resolves dot segments, never above the root", () => {
    expect(robotsPath("/k//private/")).toBe("/k/private/");
    expect(robotsPath("///k///private")).toBe("/k/private");
    expect(robotsPath("/k/./private/")).toBe("/k/private/");
    expect(robotsPath("/k/public/../private/")).toBe("/k/private/");
    expect(robotsPath("/k/%2E%2E/k/private/x")).toBe("/k/private/x");
    expect(robotsPath("/../../k/private/")).toBe("/k/private/");
    expect(robotsPath("/k/.")).toBe("/k/");
    expect(robotsPath("/")).toBe("/");
  });

  it("keeps the query as it is but for its escapes, slashes included", () => {
    expect(robotsPath("/k?next=//x/./y")).toBe("/k?next=//x/./y");
  });
});

describe("parseRobots", () => {
  const rules = parseRobots(
    "https://www.example.com/robots.txt",
    "User-agent: *\nDisallow: /k/private/\nDisallow: /%7Edrafts/\nAllow: /k/private/open$\n",
  );

  it("disallows every spelling of a disallowed folder", () => {
    for (const path of [
      "/k/private/",
      "/k/%70rivate/",
      "/k//private/",
      "/k/./private/",
      "/k/x/../private/notes",
      "/K/../k/%70%72ivate/a",
      "/~drafts/one",
      "/%7Edrafts/two",
    ])
      expect(rules.allowed(`https://www.example.com${path}`), path).toBe(false);
  });

  it("allows what is not disallowed, and an Allow rule's exact path", () => {
    expect(rules.allowed("https://www.example.com/k/public/")).toBe(true);
    expect(rules.allowed("https://www.example.com/k/privateer")).toBe(true);
    expect(rules.allowed("https://www.example.com/k/private/open")).toBe(true);
    expect(rules.allowed("https://www.example.com/k/%2Fprivate/")).toBe(true);
  });

  it("speaks for its own scheme, host and port only", () => {
    expect(rules.allowed("https://shop.example.com/k/public/")).toBe(false);
    expect(rules.allowed("https://www.example.com:8443/k/public/")).toBe(false);
    expect(rules.allowed("https://www.example.com:443/k/public/")).toBe(true);
  });
});
