import { describe, expect, it } from "vitest";
import { STRINGS } from "@/widget/i18n";
import { launcherConfig, panelConfig } from "@/widget/public-config";
import { panelCsp, panelHtml, scriptJson, unavailableCsp } from "@/widget/server/panel-html";

const tenant = {
  name: "Café </script><script>alert(1)</script>",
  widgetKey: "wk_abc",
  bot: {
    displayName: "",
    greeting: "Hi\u2028there <!-- & -->",
    instructions: "SECRET INSTRUCTIONS",
    model: "secret-model",
    language: "fr",
    color: "#ffd400",
    position: "left" as const,
    avatarUrl: "https://cdn.example/a.png",
    starters: ["Open?", "", 42 as unknown as string, "a", "b", "c", "d", "e", "f"],
  },
};

describe("panel page", () => {
  const cfg = panelConfig(tenant, { lang: "fr", parentOrigin: "https://shop.example", pageUrl: "" });

  it("exposes only public fields: no instructions, model or other tenant settings", () => {
    const json = JSON.stringify(cfg);
    expect(json).not.toContain("SECRET");
    expect(json).not.toContain("secret-model");
    expect(Object.keys(cfg).sort()).toEqual(
      [
        "avatarUrl",
        "consent",
        "greeting",
        "h",
        "key",
        "l",
        "lang",
        "name",
        "pageUrl",
        "parentOrigin",
        "starters",
        "t",
        "theme",
      ].sort(),
    );
    expect(cfg.starters).toEqual(["Open?", "a", "b", "c", "d", "e"]);
    expect(cfg.t).toEqual(STRINGS.fr);
  });

  it("embeds the config as JSON that cannot close its script element", () => {
    const html = panelHtml(cfg, { js: "/w/panel.abc.js", css: "/w/panel.abc.css" });
    const block = /<script id="michi-config" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
    expect(block).not.toBeNull();
    expect(block![1]).not.toMatch(/<\/?script|<!--|\u2028/i);
    expect(JSON.parse(block![1]!)).toEqual(cfg);
    expect(html).toContain('<script src="/w/panel.abc.js" defer></script>');
    expect(html).toContain('<html lang="fr">');
    // Exactly two script elements: the inert data block and the bundle; no inline code for the CSP to allow.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it("escapes every character that could end a script context", () => {
    expect(scriptJson({ a: "</script><!--\u2028\u2029&" })).toBe(
      '{"a":"\\u003c/script\\u003e\\u003c!--\\u2028\\u2029\\u0026"}',
    );
  });

  it("sets a strict CSP: own scripts and styles only, the avatar host for images, listed ancestors", () => {
    const csp = panelCsp(["http://localhost:3000", "https://shop.example"], cfg.avatarUrl);
    const d = Object.fromEntries(csp.split("; ").map((p) => [p.split(" ")[0], p.split(" ").slice(1)]));
    expect(d["default-src"]).toEqual(["'none'"]);
    expect(d["script-src"]).toEqual(["'self'"]);
    expect(d["style-src"]).toEqual(["'self'"]);
    expect(d["connect-src"]).toEqual(["'self'"]);
    // blob: the photo of a person who joined, which the panel fetches with the visitor's token.
    expect(d["img-src"]).toEqual(["'self'", "data:", "blob:", "https://cdn.example"]);
    expect(d["frame-ancestors"]).toEqual(["http://localhost:3000", "https://shop.example"]);
    expect(panelCsp([], null)).toContain("img-src 'self' data: blob:;");
    expect(unavailableCsp([])).toContain("frame-ancestors 'none'");
  });

  it("shows no avatar that is not https", () => {
    for (const avatarUrl of [
      "http://cdn.example/a.png",
      "javascript:alert(1)",
      "data:image/png;base64,AA",
      "x",
    ])
      expect(
        panelConfig(
          { ...tenant, bot: { ...tenant.bot, avatarUrl } },
          { lang: "en", parentOrigin: null, pageUrl: "" },
        ).avatarUrl,
      ).toBeNull();
  });

  it("gives the launcher a readable colour pair, the tenant's side and localised labels", () => {
    const l = launcherConfig(tenant, "ja");
    expect(l).toMatchObject({
      color: "#ffd400",
      onColor: "#000000",
      position: "left",
      label: STRINGS.ja.open,
    });
    expect(l.title).toContain("Café");
  });
});
