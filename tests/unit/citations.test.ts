import { describe, expect, it } from "vitest";
import { citationsFrom, safeCitations } from "@/shared/citations";
import { toEvent } from "@/widget/panel/sse";

// Citations under an answer: only the pages the turn's own search returned, by the numbers the answer cites;
// a URL the model wrote into its text never becomes a source, and the widget re-checks what it receives.

const search = {
  packId: "search_knowledge",
  result: JSON.stringify({
    found: true,
    passages: [
      { n: 1, title: "Returns", url: "https://michi.example/returns", text: "…" },
      { n: 2, title: "Parking", url: "https://michi.example/parking", text: "…" },
      { n: 3, title: "Returns (print)", url: "https://michi.example/returns", text: "…" },
    ],
  }),
};

describe("citations", () => {
  it("keeps the cited passages of the turn's search, in number order, one per page", () => {
    expect(citationsFrom("Park behind the shop [2]. Returns take 30 days [1, 3].", [search])).toEqual([
      { n: 1, title: "Returns", url: "https://michi.example/returns" },
      { n: 2, title: "Parking", url: "https://michi.example/parking" },
    ]);
  });

  it("an answer that cites nothing shows no sources", () => {
    expect(citationsFrom("I do not know; shall I put you in touch with someone?", [search])).toEqual([]);
  });

  it("a second search that found nothing leaves the first search's citations standing", () => {
    const nothing = { packId: "search_knowledge", result: JSON.stringify({ found: false, note: "…" }) };
    expect(citationsFrom("Park behind the shop [2].", [search, nothing])).toEqual([
      { n: 2, title: "Parking", url: "https://michi.example/parking" },
    ]);
  });

  it("cites a passage of an uploaded document by its name, without a link", () => {
    const withDocument = {
      packId: "search_knowledge",
      result: JSON.stringify({
        found: true,
        passages: [
          { n: 1, title: "Returns", url: "https://michi.example/returns", text: "…" },
          { n: 2, title: "Price list 2026.pdf", document: "Price list 2026.pdf", text: "…" },
          { n: 3, title: "Old", url: "file:///etc/passwd", text: "…" },
        ],
      }),
    };
    expect(citationsFrom("Prices [2], returns [1], and [3].", [withDocument])).toEqual([
      { n: 1, title: "Returns", url: "https://michi.example/returns" },
      { n: 2, title: "Price list 2026.pdf" },
    ]);
    // The widget keeps a title-only citation, and still drops any address that is not https.
    expect(
      safeCitations([
        { n: 2, title: "Price list 2026.pdf" },
        { n: 3, title: "Null", url: null },
        { n: 4, title: "" },
      ]),
    ).toEqual([{ n: 2, title: "Price list 2026.pdf" }]);
  });

  it("never turns a URL or number from the model's text into a source", () => {
    expect(citationsFrom("See https://evil.example/phish [7]", [search])).toEqual([]);
    expect(
      citationsFrom("Returns take 30 days [1].", [{ packId: "fetch_json", result: search.result }]),
    ).toEqual([]);
    expect(citationsFrom("Nothing cited.", [search])).toEqual([]);
  });

  it("the widget drops anything that is not an https citation", () => {
    expect(
      safeCitations([
        { n: 1, title: "Ok", url: "https://michi.example/a" },
        { n: 2, title: "Script", url: "javascript:alert(1)" },
        { n: "3", title: "Bad", url: "https://michi.example/b" },
      ]),
    ).toEqual([{ n: 1, title: "Ok", url: "https://michi.example/a" }]);
    const done = toEvent(
      "done",
      JSON.stringify({
        conversationId: "c",
        messageId: "m",
        citations: [{ n: 1, title: "x", url: "http://plain.example" }],
      }),
    );
    expect(done).toEqual({ type: "done", data: { conversationId: "c", messageId: "m" } });
    const kept = toEvent(
      "done",
      JSON.stringify({
        conversationId: "c",
        messageId: "m",
        citations: [{ n: 1, title: "x", url: "https://a.example/p" }],
      }),
    );
    expect(kept).toEqual({
      type: "done",
      data: {
        conversationId: "c",
        messageId: "m",
        citations: [{ n: 1, title: "x", url: "https://a.example/p" }],
      },
    });
  });
});
