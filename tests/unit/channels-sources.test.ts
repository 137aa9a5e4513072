import { describe, expect, it } from "vitest";
import { withSources } from "@/lib/channels/sources";
import { citationsFrom, rewriteMarkers } from "@/shared/citations";

// An answer's sources in the Markdown a channel converts: the widget's markers and citations rule, rewritten
// for a message with no place beside the text.

const sources = (list: { n: number; title: string; url?: string }[]) => ({ label: "Fuentes", list });

describe("an answer's sources on a channel", () => {
  it("turns the listed markers into (n), drops the others, and lists the sources under the bot's heading", () => {
    const md = withSources(
      "Devoluciones en 30 días [1, 2]. Guarde el recibo [3]. Abrimos a las nueve [9].",
      sources([
        { n: 1, title: "Devoluciones", url: "https://tienda.example/dev" },
        { n: 3, title: "politica.pdf" },
      ]),
    );
    expect(md).toBe(
      "Devoluciones en 30 días (1). Guarde el recibo (3). Abrimos a las nueve.\n\n**Fuentes**\n(1) [Devoluciones](https://tienda.example/dev)\n(3) politica.pdf",
    );
  });

  it("an answer citing nothing keeps no marker and gets no list", () => {
    expect(withSources("Park behind the shop [1]. Ask at the desk [2, 3].", sources([]))).toBe(
      "Park behind the shop. Ask at the desk.",
    );
  });

  it("a title cannot break its link; a page without a title is listed by its address", () => {
    const md = withSources(
      "See [1] and [2].",
      sources([
        { n: 1, title: "Prices [2026]\n`new`", url: "https://a.example/p" },
        { n: 2, title: "", url: "https://a.example/q" },
      ]),
    );
    expect(md).toContain("(1) [Prices (2026) 'new'](https://a.example/p)");
    expect(md).toContain("(2) [https://a.example/q](https://a.example/q)");
  });

  it("a reply that is not the assistant's answer (no sources stored) is sent as written", () => {
    expect(withSources("Press [1] on the keypad.", undefined)).toBe("Press [1] on the keypad.");
  });

  it("a Markdown link whose text is a number is a link, not a marker", () => {
    const search = {
      packId: "search_knowledge",
      result: JSON.stringify({ passages: [{ n: 1, title: "A", url: "https://a.example/" }] }),
    };
    expect(citationsFrom("Page [1](https://a.example/).", [search])).toEqual([]);
    expect(rewriteMarkers("Page [1](https://a.example/) [1].", () => "(1)")).toBe(
      "Page [1](https://a.example/) (1).",
    );
  });
});
