import { describe, expect, it } from "vitest";
import { isPersonRequest, liveWords } from "@/shared/live-words";

// What counts as a plain request for a person on a channel (docs/channels.md): the widget menu's words in its
// languages, or one word, on their own; a longer message is the assistant's to answer.

describe("a plain request for a person", () => {
  it("is the widget's words in any of its languages, whatever the case, accents and final punctuation", () => {
    for (const text of [
      "Talk to a person",
      "talk to a person!",
      "  TALK   TO A PERSON? ",
      "Hablar con una persona",
      "Parler à une personne",
      "parler a une personne.",
      "Mit einem Menschen sprechen",
      "担当者と話す",
      "human",
      "Agent",
    ]) {
      expect(isPersonRequest(text), text).toBe(true);
    }
  });

  it("is not a question that merely mentions a person", () => {
    for (const text of ["Can I talk to a person about my order?", "personal", "agents", "hola", ""]) {
      expect(isPersonRequest(text), text).toBe(false);
    }
  });
});

describe("the live words", () => {
  it("are in the bot's language, English when it has none of the widget's", () => {
    expect(liveWords("es-MX").waiting).toMatch(/^Alguien te atenderá/);
    expect(liveWords("pt").waiting).toBe(liveWords("en").waiting);
    expect(liveWords(undefined).nobody).toMatch(/Reply with your name/);
  });
});
