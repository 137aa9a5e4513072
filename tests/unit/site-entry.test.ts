import { describe, expect, it } from "vitest";
import { originAllowed, siteEntryFor } from "@/lib/security/origins";

// The entry the console warning and Site & embed tell an owner to add must be one that lets that very site in.
describe("the site entry named for a refused site", () => {
  it.each([
    ["https://shop.example.com", "shop.example.com"],
    ["http://127.0.0.1:44629", "http://127.0.0.1:44629"],
    ["http://shop.example.com", "http://shop.example.com"],
    ["https://shop.example.com:8443", "https://shop.example.com:8443"],
    ["https://localhost", "https://localhost"],
  ])("%s → %s, which then allows it", (origin, entry) => {
    expect(siteEntryFor(origin)).toBe(entry);
    expect(originAllowed(origin, [entry], "https://chat.example.net")).toBe(true);
  });
});
