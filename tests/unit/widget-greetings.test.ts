import { describe, expect, it } from "vitest";
import { botFormSchema, botFormValues, toBotSettings } from "@/lib/bot/form";
import { panelConfig } from "@/widget/public-config";

// A greeting per language: the Bot form stores the ones the admin wrote, the panel picks the visitor's.

const form = (extra: Record<string, string>) =>
  botFormSchema([]).parse({
    displayName: "Ava",
    greeting: "Hello! See our **menu**.",
    language: "en",
    color: "#0f766e",
    position: "right",
    ...extra,
  });

describe("greetings per language", () => {
  it("stores only the languages the admin filled in, and shows them back in the form", () => {
    const bot = toBotSettings(form({ greeting_es: "  ¡Hola!  ", greeting_ja: "", greeting_de: "Hallo!" }));
    expect(bot.greetings).toEqual({ es: "¡Hola!", de: "Hallo!" });
    expect(botFormValues(bot)).toMatchObject({
      greeting_es: "¡Hola!",
      greeting_de: "Hallo!",
      greeting_fr: "",
    });
    expect(toBotSettings(form({})).greetings).toBeUndefined();
  });

  it("refuses a greeting over the limit, like the main one", () => {
    expect(() => form({ greeting_fr: "x".repeat(301) })).toThrow(/at most 300/);
  });

  it("gives the panel the greeting of its language, else the one greeting", () => {
    const bot = toBotSettings(form({ greeting_es: "¡Hola! Mira el **menú**." }));
    const tenant = { name: "Shop", widgetKey: "wk_x", bot };
    const at = (lang: "es" | "fr") => panelConfig(tenant, { lang, parentOrigin: null, pageUrl: "" }).greeting;
    expect(at("es")).toBe("¡Hola! Mira el **menú**.");
    expect(at("fr")).toBe("Hello! See our **menu**.");
  });
});
