import { describe, expect, it } from "vitest";
import { containsPattern, MAX_SEARCH_TERMS, parseSearch } from "@/shared/search-terms";

describe("parseSearch", () => {
  it("splits words, keeps quoted phrases whole and excludes minus terms", () => {
    expect(parseSearch('oat "flat white" -decaf')).toEqual({
      include: ["oat", "flat white"],
      exclude: ["decaf"],
    });
    expect(parseSearch("  営業時間  ")).toEqual({ include: ["営業時間"], exclude: [] });
    expect(parseSearch('"unfinished phrase')).toEqual({ include: ["unfinished phrase"], exclude: [] });
    expect(parseSearch('- ""')).toEqual({ include: [], exclude: [] });
  });

  it("caps the number of terms", () => {
    const many = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ");
    expect(parseSearch(many).include).toHaveLength(MAX_SEARCH_TERMS);
  });
});

describe("containsPattern", () => {
  it("takes LIKE's wildcards literally", () => {
    expect(containsPattern("50%_off\\")).toBe("%50\\%\\_off\\\\%");
  });
});
