import { describe, expect, it } from "vitest";
import { botFormSchema, botFormValues, toBotSettings } from "@/lib/bot/form";
import { DEFAULT_CONSENTS } from "@/shared/consent";
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

describe("starters and consent per language", () => {
  const bot = toBotSettings(
    form({
      starter1: "Are you open?",
      starter2: "Do you deliver?",
      greeting_es: "¡Hola!",
      starters_es: "¿Estáis abiertos?\n\n  ¿Hacéis envíos?  ",
      greeting_fr: "Bonjour !",
      consent_de: "Ich bin einverstanden.",
    }),
  );
  const tenant = { name: "Shop", widgetKey: "wk_x", bot };
  const at = (lang: "en" | "es" | "fr" | "de" | "ja", consent = DEFAULT_CONSENTS.en) =>
    panelConfig(tenant, { lang, parentOrigin: null, pageUrl: "", consent });

  it("stores starters per language, one per line, and shows them back", () => {
    expect(bot.startersByLang).toEqual({ es: ["¿Estáis abiertos?", "¿Hacéis envíos?"] });
    expect(botFormValues(bot)).toMatchObject({
      starters_es: "¿Estáis abiertos?\n¿Hacéis envíos?",
      starters_fr: "",
    });
    expect(() => form({ starters_fr: "a\nb\nc\nd\ne" })).toThrow(/At most 4 starter prompts/);
  });

  it("never shows starters in another language beside a greeting in the visitor's", () => {
    expect(at("es").starters).toEqual(["¿Estáis abiertos?", "¿Hacéis envíos?"]);
    // A French greeting but no French starters: none, rather than English ones under a French greeting.
    expect(at("fr").starters).toEqual([]);
    // Nothing written for Japanese at all: the main greeting and the main starters go together.
    expect(at("ja")).toMatchObject({
      greeting: "Hello! See our **menu**.",
      starters: ["Are you open?", "Do you deliver?"],
    });
    expect(at("en").starters).toEqual(["Are you open?", "Do you deliver?"]);
  });

  it("shows the consent in the visitor's language: the business's own, else the platform's default in it", () => {
    expect(at("de").consent).toBe("Ich bin einverstanden.");
    expect(at("es").consent).toBe(DEFAULT_CONSENTS.es);
    expect(at("ja").consent).toBe(DEFAULT_CONSENTS.ja);
    // A main consent the business wrote itself is kept where no translation of its own exists.
    expect(at("es", "We may call you back.").consent).toBe("We may call you back.");
    expect(at("en", "").consent).toBe("");
  });
});
