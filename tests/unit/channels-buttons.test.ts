import { describe, expect, it } from "vitest";
import { adapterFor } from "@/lib/channels/adapter";
import {
  inboundText,
  offerButtons,
  PERSON_ID,
  TG_DATA_MAX_BYTES,
  telegramButtons,
  whatsappButtons,
} from "@/lib/channels/buttons";
import type { BotSettings } from "@/lib/db/schema";
import { LANGS } from "@/shared/languages";
import { isPersonRequest, personButtonLabel } from "@/shared/live-words";

// The buttons under a first channel answer (docs/channels.md, "Buttons"): the starters and "Talk to a person",
// within WhatsApp's limits (3 buttons, 20-character titles) and Telegram's (callback_data 1-64 bytes), and a
// tap read back as what the button stands for.

const bot: BotSettings = {
  language: "en",
  starters: ["What are your opening hours on weekdays?", "Where are you?", "Do you deliver?", "Prices?"],
  startersByLang: {
    es: ["¿Cuál es vuestro horario?", "¿Dónde estáis?"],
    ja: ["営業時間を教えてください。土曜日と日曜日も営業していますか？"],
  },
};

describe("the Talk to a person button", () => {
  it("fits a WhatsApp title in every language and is itself a request for a person", () => {
    for (const lang of LANGS) {
      const label = personButtonLabel(lang);
      expect(label.length, lang).toBeLessThanOrEqual(20);
      expect(isPersonRequest(label), lang).toBe(true);
    }
    expect(personButtonLabel("es-MX")).toBe("Hablar con alguien");
    // A phone's typographic apostrophe counts like the plain one.
    expect(isPersonRequest("Parler à quelqu’un")).toBe(true);
  });
});

/** The buttons a first answer carries on a channel: the offer, as its adapter formats it. */
function replyButtons(b: BotSettings, channel: string, offerPerson: boolean) {
  const { text: _, ...buttons } = adapterFor(channel).format("Hi", offerButtons(b, offerPerson)).at(-1)!;
  return buttons;
}

describe("the buttons of a first answer", () => {
  it("on WhatsApp are at most three, the person's last when the business can take one", () => {
    const withPerson = replyButtons(bot, "whatsapp", true);
    expect(withPerson).toEqual({
      buttons: ["What are your opening hours on weekdays?", "Where are you?"],
      person: "Talk to a person",
    });
    const wa = whatsappButtons({ text: "Hi", ...withPerson });
    expect(wa).toHaveLength(3);
    expect(wa.every((b) => b.title.length <= 20 && b.id.length <= 256)).toBe(true);
    expect(wa.at(-1)).toEqual({ id: PERSON_ID, title: "Talk to a person" });
    expect(replyButtons(bot, "whatsapp", false).buttons).toHaveLength(3);
    expect(replyButtons(bot, "whatsapp", false).person).toBeUndefined();
  });

  it("are in the bot's language: its starters for that language and its words for a person", () => {
    expect(replyButtons({ ...bot, language: "es" }, "telegram", true)).toEqual({
      buttons: ["¿Cuál es vuestro horario?", "¿Dónde estáis?"],
      person: "Hablar con alguien",
    });
    // A language without its own starters uses the main ones.
    expect(replyButtons({ ...bot, language: "de" }, "telegram", true).buttons).toEqual(bot.starters);
    expect(replyButtons({ language: "fr" }, "whatsapp", false)).toEqual({});
  });

  it("on Telegram carry callback_data of 1 to 64 bytes, even for a long Japanese starter", () => {
    const body = { text: "こんにちは", ...replyButtons({ ...bot, language: "ja" }, "telegram", true) };
    const keyboard = telegramButtons(body);
    expect(keyboard.map((b) => b.text)).toEqual([bot.startersByLang!.ja![0], "担当者と話す"]);
    for (const b of keyboard) {
      const bytes = Buffer.byteLength(b.data, "utf8");
      expect(bytes).toBeGreaterThanOrEqual(1);
      expect(bytes).toBeLessThanOrEqual(TG_DATA_MAX_BYTES);
    }
    // The starter did not fit whole: its tap is answered as the starter all the same.
    expect(keyboard[0]!.data).not.toContain("営業");
    expect(inboundText(bot, { text: keyboard[0]!.text, button: keyboard[0]!.data })).toBe(
      bot.startersByLang!.ja![0],
    );
  });
});

describe("a tapped button", () => {
  it("is answered as the whole starter it carries, not its shortened title", () => {
    const [first] = whatsappButtons({ text: "Hi", buttons: [bot.starters![0]!] });
    expect(first!.title.length).toBeLessThanOrEqual(20);
    expect(inboundText(bot, { text: first!.title, button: first!.id })).toBe(bot.starters![0]);
  });

  it("for a person is the person words in the bot's language, whatever its label said", () => {
    expect(inboundText({ language: "de" }, { text: "Talk to a person", button: PERSON_ID })).toBe(
      "Mit jemandem reden",
    );
  });

  it("whose starter the business has since changed is answered as its label", () => {
    const [b] = telegramButtons({ text: "Hi", buttons: [bot.startersByLang!.ja![0]!] });
    expect(inboundText({ starters: ["Something new"] }, { text: b!.text, button: b!.data })).toBe(b!.text);
  });

  it("that is not one of ours is its label; a plain message is its text", () => {
    expect(inboundText(bot, { text: "Yes please", button: "promo-2026" })).toBe("Yes please");
    expect(inboundText(bot, { text: "  hello " })).toBe("hello");
    expect(inboundText(bot, null)).toBe("");
  });
});
