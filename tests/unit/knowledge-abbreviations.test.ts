import { describe, expect, it } from "vitest";
import { expansionsFor, learnAbbreviations } from "@/lib/knowledge/abbreviations";

// A site's abbreviations are learned only where its own text defines them, in either order, so a visitor's
// "piv" can be matched to a section that only spells it out, and the other way round.

describe("abbreviations a page defines", () => {
  it("learns the expansion before or after the parenthesis, minor words and hyphens included", () => {
    const pairs = learnAbbreviations(
      "Use a Personal Identity Verification (PIV) card. A CAC (Common Access Card) works too. " +
        "cloud.gov is a Platform as a Service (PaaS). Use your agency’s single sign-on (SSO). " +
        "Ask the Office of Management and Budget (OMB).",
    );
    expect(pairs).toEqual(
      expect.arrayContaining([
        { short: "piv", long: "personal identity verification" },
        { short: "cac", long: "common access card" },
        { short: "paas", long: "platform as a service" },
        { short: "sso", long: "single sign on" },
        { short: "omb", long: "office of management and budget" },
      ]),
    );
    expect(pairs).toHaveLength(5);
  });

  it("learns nothing from a parenthesis that is no definition, or from a form used as a plain word", () => {
    expect(learnAbbreviations("Bring your card (NOT a copy). Read the FAQ (see below).")).toEqual([]);
    // Two letters, or a form the same text uses as an everyday word, would widen ordinary questions.
    expect(
      learnAbbreviations("Service Objectives (SO) are so simple. Our Top Priority (TOP) is on top."),
    ).toEqual([]);
  });

  it("gives a query the other form of what it says, once, and nothing for a word inside another", () => {
    const known = [{ short: "piv", long: "personal identity verification" }];
    expect(expansionsFor("Can I use my PIV card?", known)).toEqual(["personal identity verification"]);
    expect(expansionsFor("what is a personal identity verification card", known)).toEqual(["piv"]);
    expect(expansionsFor("piv or personal identity verification", known)).toEqual([]);
    expect(expansionsFor("pivot table", known)).toEqual([]);
  });
});
