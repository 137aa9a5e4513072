import { parseHTML } from "linkedom";
import { h, render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";
import { LIVE_STRINGS } from "@/shared/live-words";
import { themeFor } from "@/widget/contrast";
import { STRINGS } from "@/widget/i18n";
import { App } from "@/widget/panel/App";
import type { Bridge } from "@/widget/panel/bridge";
import type { Session } from "@/widget/panel/session";
import type { PanelConfig } from "@/widget/public-config";

// The visitor asks for a person ("Talk to a person" in the panel's menu) and nobody can chat (issue #28): the
// panel, rendered into a DOM, says why in the visitor's language and shows the contact form under it. The
// server's answers are scripted at fetch, with the shape POST /api/widget/[key]/conversations/[id]/live
// gives (src/widget/server/live-request.ts).

const cfg = (lang: "en" | "es"): PanelConfig => ({
  key: "pk_test",
  name: "Cafe bot",
  avatarUrl: null,
  greeting: "Hello!",
  starters: [],
  lang,
  theme: themeFor(null),
  parentOrigin: null,
  pageUrl: "https://cafe.example/",
  t: STRINGS[lang],
  consent: "",
  h: HANDOFF_STRINGS[lang],
  l: LIVE_STRINGS[lang],
});

const session: Session = {
  token: async () => "visitor-token",
  conversationId: () => "11111111-1111-4111-8111-111111111111",
  setConversation: () => {},
  keepFresh: () => () => {},
};

const bridge: Bridge = {
  framed: false,
  send: () => {},
  listen: () => () => {},
  hostCopy: async () => undefined,
};

/** Renders the panel with the live request answered `answer`; returns the document and the requests made. */
async function panelWhereNobodyCanChat(lang: "en" | "es", answer: unknown) {
  const { window, document } = parseHTML("<html><body><div id=app></div></body></html>");
  vi.stubGlobal("window", window);
  vi.stubGlobal("document", document);
  const asked: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url.endsWith("/live") && init?.method === "POST") {
        asked.push(url);
        return Response.json(answer);
      }
      // The conversation as stored (the restore on mount): one question the bot answered.
      return Response.json({
        messages: [
          { id: "u1", role: "user", content: "Can I book a table for six?" },
          { id: "a1", role: "assistant", content: "I cannot book tables myself." },
        ],
        live: "bot",
      });
    }),
  );
  const app = document.getElementById("app") as unknown as Element;
  await act(async () => {
    render(h(App, { cfg: cfg(lang), session, bridge }), app);
  });
  const click = async (el: Element | null | undefined) => {
    expect(el).toBeTruthy();
    await act(async () => {
      el?.dispatchEvent(new window.Event("click", { bubbles: true }));
    });
  };
  const c = cfg(lang);
  await click(document.querySelector(`button[aria-label="${c.h.menu}"]`) as Element | null);
  const talk = [...document.querySelectorAll(".hmenu-list button")].find((b) => b.textContent === c.h.talk);
  await click(talk as Element | undefined);
  // The request's answer, then the form.
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
  return { document, asked };
}

afterEach(() => {
  render(null, (globalThis.document?.getElementById("app") ?? null) as unknown as Element);
  vi.unstubAllGlobals();
});

describe("nobody can chat: the honest sentence and the contact form", () => {
  it("nobody online: says so, and offers the form", async () => {
    const { document, asked } = await panelWhereNobodyCanChat("en", { live: false, reason: "nobody_online" });
    expect(asked).toEqual(["/api/widget/pk_test/conversations/11111111-1111-4111-8111-111111111111/live"]);
    const note = document.querySelector(".hf-menu .live-note");
    expect(note?.textContent).toBe(
      "Nobody is available to chat right now. Leave your details and a person will get back to you.",
    );
    expect(note?.getAttribute("role")).toBe("status");
    const form = document.querySelector(".hf-menu form.hf");
    expect(form?.querySelector('input[type="email"]')).toBeTruthy();
    expect(form?.textContent).toContain(HANDOFF_STRINGS.en.send);
    // The sentence comes with the form, never instead of the conversation.
    expect(document.body.textContent).toContain("Can I book a table for six?");
  });

  it("outside the business's hours: the other sentence, in the visitor's language", async () => {
    const { document } = await panelWhereNobodyCanChat("es", { live: false, reason: "closed" });
    expect(document.querySelector(".hf-menu .live-note")?.textContent).toBe(LIVE_STRINGS.es.outsideHours);
    expect(LIVE_STRINGS.es.outsideHours).not.toBe(LIVE_STRINGS.es.nobody);
    expect(document.querySelector('.hf-menu form.hf input[type="email"]')).toBeTruthy();
  });

  it("someone online: no sentence and no form, the visitor waits for the person", async () => {
    const { document } = await panelWhereNobodyCanChat("en", { live: true, state: "waiting" });
    expect(document.querySelector(".live-note")).toBeNull();
    expect(document.querySelector(".hf-menu form.hf")).toBeNull();
  });
});
