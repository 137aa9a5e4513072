import { describe, expect, it } from "vitest";
import { siteOrigin } from "@/widget/server/guard";

describe("the site a conversation is recorded under", () => {
  it("is the host page the panel reports, since the panel's own requests come from the platform origin", () => {
    expect(siteOrigin("https://michi-cafe.com/menu?x=1", "https://chat.example.com")).toBe(
      "https://michi-cafe.com",
    );
    expect(siteOrigin("http://localhost:5173/", "https://chat.example.com")).toBe("http://localhost:5173");
  });

  it("falls back to the request's origin when the page is missing or not a web address", () => {
    for (const page of ["", "not a url", "javascript:alert(1)", "file:///etc/passwd"]) {
      expect(siteOrigin(page, "https://chat.example.com")).toBe("https://chat.example.com");
    }
  });
});
