import { describe, expect, it } from "vitest";
import { hashLinkToken, isLinkToken, newLinkToken } from "@/lib/security/link-token";
import { invitationMail } from "@/lib/team/invitation-mail";

describe("the invitation mail", () => {
  const base = {
    business: "Café Michi",
    inviter: "Olive",
    role: "admin" as const,
    link: "https://x.test/invite/abc",
    days: 7,
  };

  it("names the business, the role, the link and its lifetime in the text and the HTML", () => {
    const m = invitationMail(base);
    expect(m.subject).toBe("Olive invited you to Café Michi on michi-chat");
    expect(m.text).toContain("https://x.test/invite/abc");
    expect(m.text).toContain("as an admin (everything but the team)");
    expect(m.text).toContain("expires in 7 days");
    expect(m.html).toContain('<a href="https://x.test/invite/abc">');
  });

  it("escapes names in the HTML and keeps the subject on one line", () => {
    const m = invitationMail({ ...base, inviter: 'Eve <script>"', business: "A\r\nBcc: x@evil.test" });
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("Eve &lt;script&gt;&quot;");
    expect(m.subject).not.toMatch(/[\r\n]/);
  });
});

describe("link tokens", () => {
  it("are 256 random bits in base64url, stored as a SHA-256 that differs from the token", () => {
    const a = newLinkToken();
    const b = newLinkToken();
    expect(isLinkToken(a.token)).toBe(true);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(hashLinkToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(isLinkToken("../etc/passwd")).toBe(false);
    expect(isLinkToken(a.hash)).toBe(false);
  });
});
