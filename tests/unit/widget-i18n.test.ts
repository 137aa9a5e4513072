import { describe, expect, it } from "vitest";
import { fill } from "@/shared/fill";
import { LANGS } from "@/shared/languages";
import { normalizeLang, parseAcceptLanguage, pickLang } from "@/shared/pick-lang";
import { STRINGS } from "@/widget/i18n";
import { codeMessage } from "@/widget/wording";

describe("widget language", () => {
  it("prefers data-michi-lang, then the tenant's language, then the browser, then English", () => {
    expect(pickLang("ja", "fr", ["de"])).toBe("ja");
    expect(pickLang(null, "fr", ["de"])).toBe("fr");
    expect(pickLang(null, null, ["de-AT", "en"])).toBe("de");
    expect(pickLang(null, undefined, [])).toBe("en");
  });

  it("falls through a language it does not speak at any level", () => {
    expect(pickLang("ko", "es", ["ja"])).toBe("es");
    expect(pickLang("ko", "pt-BR", ["zh-CN", "ja-JP"])).toBe("ja");
    expect(pickLang("", "", ["xx"])).toBe("en");
  });

  it("normalises region and case", () => {
    expect(normalizeLang("JA-jp")).toBe("ja");
    expect(normalizeLang("es_MX")).toBe("es");
    expect(normalizeLang("english")).toBeNull();
  });

  it("orders Accept-Language by quality and drops q=0 and *", () => {
    expect(parseAcceptLanguage("fr;q=0.5, ja-JP, *;q=0.1, de;q=0")).toEqual(["ja-JP", "fr"]);
    expect(pickLang(null, null, parseAcceptLanguage("ko, es;q=0.8, en;q=0.7"))).toBe("es");
    expect(parseAcceptLanguage(null)).toEqual([]);
  });

  it("has every string in every language, none left empty", () => {
    const keys = Object.keys(STRINGS.en).sort();
    for (const lang of LANGS) {
      expect(Object.keys(STRINGS[lang]).sort()).toEqual(keys);
      for (const k of keys) expect(STRINGS[lang][k as keyof typeof STRINGS.en].trim()).not.toBe("");
    }
    expect(STRINGS.ja.send).toBe("送信");
  });

  it("fills the bot's name into templates", () => {
    expect(fill(STRINGS.ja.title, { name: "ミチ" })).toBe("ミチとチャット");
    expect(fill("{name} {missing}", { name: "A" })).toBe("A {missing}");
  });

  it("words every code the server sends (stream errors and refusals) in every language, never in English", () => {
    // The codes of docs/chat-engine.md: the stream's error codes and the JSON refusals a visitor can meet.
    const codes = [
      "model_busy",
      "model_error",
      "model_timeout",
      "idle_timeout",
      "interrupted",
      "length",
      "content_filter",
      "round_cap",
      "empty",
      "db_unavailable",
      "internal",
      "rate_limited",
      "budget_exhausted",
      "model_not_configured",
      "tenant_suspended",
      "payload_too_large",
      "invalid_input",
    ];
    for (const lang of LANGS) {
      expect(codeMessage(STRINGS[lang], "length")).toBe(STRINGS[lang].cutLength);
      expect(codeMessage(STRINGS[lang], "content_filter")).toBe(STRINGS[lang].filtered);
      expect(codeMessage(STRINGS[lang], "model_busy")).toBe(STRINGS[lang].busy);
      expect(codeMessage(STRINGS[lang], "rate_limited")).toBe(STRINGS[lang].rateLimited);
      for (const code of codes) {
        const text = codeMessage(STRINGS[lang], code);
        expect(text.trim()).not.toBe("");
        if (lang !== "en") expect(Object.values(STRINGS.en)).not.toContain(text);
      }
      // A code the panel does not know reads as its generic error, not as anything the server wrote.
      expect(codeMessage(STRINGS[lang], "some_new_code")).toBe(STRINGS[lang].error);
      expect(codeMessage(STRINGS[lang], "toString")).toBe(STRINGS[lang].error);
    }
    expect(STRINGS.de.filtered).toMatch(/Inhaltsfilter/);
    expect(STRINGS.es.busy).toMatch(/ocupado/);
  });
});
