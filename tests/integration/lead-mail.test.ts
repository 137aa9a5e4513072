import { eq } from "drizzle-orm";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startTestMailQueue } from "../support/mail-queue";
import { startSmtpServer, type TestSmtpServer, useSmtp } from "../support/smtp-server";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));
// The Outbox calls connection() to opt out of prerendering; outside a request it would throw.
vi.mock("next/server", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next/server")>()),
  connection: async () => {},
}));

const { submitLead } = await import("@/lib/leads/submit");
const { leadMail } = await import("@/lib/leads/notify");
const { saveLead } = await import("@/lib/db/queries/leads");
const { leads } = await import("@/lib/db/schema");
const { log } = await import("@/lib/log");
const { DEFAULT_CONSENTS } = await import("@/shared/consent");
const { default: InboxPage } = await import("@/app/(admin)/admin/[tenant]/inbox/page");
const { default: OutboxPage } = await import("@/app/(admin)/admin/operator/outbox/page");
const { sendMail } = await import("@/lib/mail/send");
const { env } = await import("@/lib/env");

// A contact request and the mail that tells the business: addresses that could bend a mail link are refused
// by the server, the Inbox's links are encoded, a notice goes out even when one field would not fit a mail
// header, and a mail the server refused shows in the Inbox and is sent again by the durable queue.

let t: TestDb;
let smtp: TestSmtpServer;
let queue: Awaited<ReturnType<typeof startTestMailQueue>>;
let owner: Awaited<ReturnType<typeof makeUser>>;
let shop: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  t = await installTestDb();
  smtp = await startSmtpServer();
  useSmtp(smtp.url);
  owner = await makeUser(t.handle, "owner@leadmail.test");
  shop = await makeTenant(t.handle, "lead-mail", [[owner, "owner"]]);
  queue = await startTestMailQueue(t.handle);
});
afterAll(async () => {
  await queue?.stop();
  useSmtp(null);
  await smtp?.close();
  await t?.close();
});

const contact = (body: Record<string, unknown>) =>
  submitLead(t.handle, { tenant: shop, visitorId: "visitor-lead-mail-0001", lang: "en", body }, log());

async function inbox(): Promise<string> {
  actAs(owner);
  return renderToStaticMarkup(
    await InboxPage({ params: Promise.resolve({ tenant: shop.slug }), searchParams: Promise.resolve({}) }),
  );
}

const leadRow = async (id: string) =>
  (await t.handle.platform.select().from(leads).where(eq(leads.id, id)))[0]!;

describe("the contact form's e-mail address", () => {
  // The red-team corpus of docs/security.md: each would add a header or a recipient to a mailto: link.
  const BENT = [
    "x@visitor.test?bcc=attacker%40evil.test",
    "x@visitor.test?cc=attacker@evil.test",
    "x@visitor.test&bcc=attacker@evil.test",
    "x@visitor.test?subject=hi&body=click%20here",
    "x%40visitor.test@evil.test",
    "x@visitor.test#frag",
    "x=y@visitor.test",
    "x@visitor.test,attacker@evil.test",
    "x@visitor.test;attacker@evil.test",
    '"x y"@visitor.test',
    "<x@visitor.test>",
  ];
  for (const email of BENT)
    it(`refuses ${email} with a field message`, async () => {
      await expect(contact({ email, message: "Call me", consent: true })).rejects.toMatchObject({
        code: "invalid_input",
        details: { fieldErrors: { email: ["email_invalid"] } },
      });
    });

  it("takes an ordinary address, with plus and dots", async () => {
    const { lead } = await contact({ email: "ana.m+shop@example.org", message: "Call me", consent: true });
    expect(lead.email).toBe("ana.m+shop@example.org");
  });
});

describe("what the visitor is told and what is stored", () => {
  it("names the business in the confirmation, and stores the consent sentence in the visitor's language", async () => {
    const es = await submitLead(
      t.handle,
      {
        tenant: { ...shop, consents: { fr: "J'accepte, merci." } },
        visitorId: "visitor-lead-mail-0002",
        lang: "es",
        body: { name: "Ana", email: "ana@example.org", message: "Llámame", consent: true },
      },
      log(),
    );
    expect(es.confirmation).toBe(`¡Gracias! Alguien de ${shop.name} se pondrá en contacto contigo pronto.`);
    expect(es.lead.consentText).toBe(DEFAULT_CONSENTS.es);
    const fr = await submitLead(
      t.handle,
      {
        tenant: { ...shop, consents: { fr: "J'accepte, merci." } },
        visitorId: "visitor-lead-mail-0003",
        lang: "fr",
        body: { name: "Léa", email: "lea@example.org", message: "Rappelez-moi", consent: true },
      },
      log(),
    );
    expect(fr.lead.consentText).toBe("J'accepte, merci.");
  });
});

describe("the Inbox's links", () => {
  it("encodes the visitor's address and phone, so a stored odd value adds no header", async () => {
    // As a row stored before the server's check: written straight to the table.
    await t.handle.forTenant(shop.id, (tx) =>
      saveLead(tx, {
        tenantId: shop.id,
        conversationId: null,
        source: "menu",
        name: "Old Row",
        email: "x@visitor.test?bcc=attacker%40evil.test",
        phone: "+49 30 1234567?x",
        message: "old",
        consentText: "",
        locale: "en",
      }),
    );
    const html = await inbox();
    expect(html).toContain('href="mailto:x@visitor.test%3Fbcc%3Dattacker%2540evil.test"');
    expect(html).toContain('href="tel:+49301234567"');
    expect(html).not.toMatch(/href="mailto:[^"]*[?&]/);
  });
});

describe("the mail that tells the business", () => {
  it("still goes out when the visitor's address cannot be a Reply-To, without that header", async () => {
    const row = await t.handle.forTenant(shop.id, (tx) =>
      saveLead(tx, {
        tenantId: shop.id,
        conversationId: null,
        source: "menu",
        name: "Legacy",
        email: "x@visitor.test?bcc=attacker%40evil.test",
        phone: "",
        message: "a request stored before the strict check",
        consentText: "",
        locale: "en",
      }),
    );
    const before = smtp.received.length;
    await leadMail(t.handle, shop, row, { recipients: [owner.email] }, log());
    const mails = await smtp.waitFor(before + 1);
    const mail = mails.at(-1)!;
    expect(mail.envelope.to).toEqual([owner.email]);
    expect(mail.replyTo).toBeUndefined();
    expect(mail.text).toContain("a request stored before the strict check");
    expect((await leadRow(row.id)).mailStatus).toBe("sent");
  });

  it("is shown as failed in the Inbox when the mail server refuses, and the queue sends it again", async () => {
    smtp.rejectWith(451);
    const before = smtp.received.length;
    const { lead } = await contact({
      name: "Rita Retry",
      email: "rita@example.org",
      message: "Hi",
      consent: true,
    });
    const failed = await leadRow(lead.id);
    expect(failed.mailStatus).toBe("failed");
    expect(failed.mailError).toMatch(/451/);
    expect(await inbox()).toContain("The notification mail about this request could not be sent");
    smtp.rejectWith(null);
    await expect.poll(async () => (await leadRow(lead.id)).mailStatus, { timeout: 20_000 }).toBe("sent");
    const mail = (await smtp.waitFor(before + 1)).at(-1)!;
    expect(mail.subject).toBe("New contact request from Rita Retry");
    expect(mail.replyTo?.text).toBe("rita@example.org");
    expect(await inbox()).not.toContain("could not be sent");
  });
});

describe("the operator's Outbox", () => {
  it("shows a visitor's links as text, and only the platform's own links in its own mails as links", async () => {
    const operator = await makeUser(t.handle, "operator@leadmail.test", { isOperator: true });
    useSmtp(null, { outbox: true }); // every mail kept whole, as without a mail server
    try {
      const { lead } = await contact({
        name: "Phil Isher",
        email: "phil@example.org",
        message: "Your menu is here: https://evil.test/menu?login=1 and javascript:alert(1) <b>hi</b>",
        consent: true,
      });
      expect((await leadRow(lead.id)).mailStatus).toBe("sent");
      const platformLink = `${env().MICHI_PUBLIC_URL}/invite#${"A".repeat(43)}`;
      await sendMail({
        kind: "invitation",
        to: "someone@leadmail.test",
        subject: "Join",
        text: `Open ${platformLink} or, says the inviter's name, https://evil.test/x`,
      });
      actAs(operator);
      const html = renderToStaticMarkup(await OutboxPage());
      expect(html).toContain("https://evil.test/menu?login=1");
      expect(html).not.toMatch(/href="https:\/\/evil\.test/);
      expect(html).not.toContain("<b>hi</b>");
      expect(html).toContain(`href="${platformLink}"`);
    } finally {
      useSmtp(smtp.url);
    }
  });
});
