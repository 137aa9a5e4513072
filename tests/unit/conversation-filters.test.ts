import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ConversationFilters } from "@/app/(admin)/admin/[tenant]/conversations/ConversationFilters";

// The Conversations filter bar at 1280 px (#45 item 11): eight fields and the buttons wrap into a grid of
// labelled fields, two rows from lg, instead of a seven-column row that squeezes them. Layout itself is
// checked by eye; this holds the grid's shape and that every control keeps its label.

const html = renderToStaticMarkup(
  createElement(ConversationFilters, {
    action: "/admin/shop/conversations",
    filters: {} as Parameters<typeof ConversationFilters>[0]["filters"],
    filtered: false,
    ignored: [],
    canExport: true,
  }),
);

describe("the Conversations filter bar", () => {
  it("is a grid of five columns from lg, the search spanning two, so nine cells make two rows", () => {
    const form = html.match(/<form[^>]*class="([^"]*)"/)?.[1] ?? "";
    expect(form.split(" ")).toContain("lg:grid-cols-5");
    expect(form).not.toMatch(/lg:grid-cols-\[/);
    expect(html).toMatch(/<div class="[^"]*sm:col-span-2[^"]*"><label class="label" for="f-q">/);
  });

  it("labels every control", () => {
    const ids = [...html.matchAll(/<(?:input|select)[^>]* id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(["f-from", "f-to", "f-pack", "f-outcome", "f-channel", "f-rating", "f-scope", "f-q"]);
    for (const id of ids) expect(html).toContain(`for="${id}"`);
  });
});
