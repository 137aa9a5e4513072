import "server-only";
import { z } from "zod";
import { isUuid } from "@/shared/parse";
import { getDb } from "../db";
import { insertOutbox } from "../db/queries/outbox";
import type { MailStatus } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { type MailDelivery, mailDelivery, smtpTransport } from "./transport";

// The one way the platform sends mail. Every mail is recorded in the outbox table (the operator's Outbox
// page); how it leaves depends on the installation (see mailDelivery):
// - smtp:   handed to MICHI_SMTP_URL; the record keeps the envelope only (links in mails are secrets).
// - outbox: no SMTP and MICHI_MAIL_OUTBOX on (the development default): kept whole for the operator, so a
//           newcomer can follow an invitation or a reset with no mail server; in development also logged.
// - off:    production without SMTP: dropped, the record says so, and pages tell people mail is off.
//
// sendMail never throws for a delivery fault: a mail is a side effect of something that already happened
// (an invitation stored, a lead taken), so the caller gets the status and decides what to tell the person.
// Call it outside db.forTenant: it writes through its own platform connection.

export { type MailDelivery, mailDelivery, smtpServerLabel } from "./transport";

export type MailKind =
  | "invitation"
  | "password_reset"
  | "sign_up"
  | "lead"
  | "live_waiting"
  | "webhook_disabled"
  | "health"
  | "test_run";

export type MailInput = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  kind: MailKind;
  /** The business the mail is about; the record goes when the business is deleted. */
  tenantId?: string;
  replyTo?: string;
};

export type MailResult = { id: string; status: MailStatus; delivery: MailDelivery; error?: string };

// A line break in a header would let text from a form add headers of its own; nodemailer encodes headers, and
// this refuses them before that as well.
const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !/[\r\n]/.test(v), "must be one line");

/**
 * The one check of an e-mail address the platform stores or mails to: zod's e-mail pattern (letters, digits
 * and . _ ' + - before the @, a domain of labels), at most 254 characters. It refuses the characters a mail
 * link or a header could be bent with (? & = % # , ; spaces, quotes, angle brackets), and it is the same
 * check the Reply-To of a mail gets, so an address the contact form took can always be a Reply-To.
 */
const mailAddress = z.email().max(254);

export function isMailAddress(value: string): boolean {
  return mailAddress.safeParse(value).success;
}

const mailInput = z.object({
  to: mailAddress,
  subject: oneLine(200),
  text: z.string().min(1).max(100_000),
  html: z.string().max(200_000).optional(),
  kind: z.enum([
    "invitation",
    "password_reset",
    "sign_up",
    "lead",
    "live_waiting",
    "webhook_disabled",
    "health",
    "test_run",
  ]),
  tenantId: z
    .string()
    .refine((v) => isUuid(v), "must be a uuid")
    .optional(),
  replyTo: mailAddress.optional(),
});

/** Sends (or keeps, or drops) one mail and records it. Throws AppError("invalid_input") for a malformed mail. */
export async function sendMail(input: MailInput): Promise<MailResult> {
  const parsed = mailInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      "invalid_input",
      `This mail cannot be sent: ${issue?.path.join(".")} ${issue?.message}`,
    );
  }
  const mail = parsed.data;
  const delivery = mailDelivery();
  const e = env();
  const db = (await getDb()).platform;
  const record = {
    tenantId: mail.tenantId ?? null,
    kind: mail.kind,
    toAddress: mail.to,
    subject: mail.subject,
  };

  if (delivery === "outbox") {
    const id = await insertOutbox(db, {
      ...record,
      bodyText: mail.text,
      bodyHtml: mail.html ?? null,
      status: "kept",
    });
    // In development the terminal is where a newcomer looks first; the text holds the link they need. In
    // production (MICHI_MAIL_OUTBOX=true) the body stays out of the log: logs travel further than the database.
    const where = `${e.MICHI_PUBLIC_URL}/admin/operator/outbox`;
    if (e.isProduction)
      log().info({ mail: { id, kind: mail.kind } }, `mail kept in the Outbox (no SMTP configured): ${where}`);
    else
      log().info(
        { mail: { id, kind: mail.kind, to: mail.to, subject: mail.subject } },
        `mail kept in the Outbox (no SMTP configured), also at ${where}:\n${mail.text}`,
      );
    return { id, status: "kept", delivery };
  }

  if (delivery === "off") {
    const id = await insertOutbox(db, { ...record, bodyText: null, bodyHtml: null, status: "off" });
    log().warn({ mail: { id, kind: mail.kind } }, "mail not sent: no SMTP configured (MICHI_SMTP_URL)");
    return { id, status: "off", delivery };
  }

  try {
    await smtpTransport(e.MICHI_SMTP_URL!).sendMail({
      from: e.MICHI_MAIL_FROM,
      to: mail.to,
      replyTo: mail.replyTo,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    const id = await insertOutbox(db, { ...record, bodyText: null, bodyHtml: null, status: "sent" });
    log().info({ mail: { id, kind: mail.kind } }, "mail sent");
    return { id, status: "sent", delivery };
  } catch (err) {
    const error = describeSmtpError(err);
    const id = await insertOutbox(db, { ...record, bodyText: null, bodyHtml: null, status: "failed", error });
    log().warn({ mail: { id, kind: mail.kind }, error }, "mail could not be sent");
    return { id, status: "failed", delivery, error };
  }
}

/**
 * A short reason for the operator. nodemailer's errors carry a code (ECONNECTION, EAUTH, EENVELOPE…) and the
 * server's reply; neither holds the SMTP password, which lives only in the URL.
 */
function describeSmtpError(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [
    typeof e.code === "string" ? e.code : null,
    typeof e.responseCode === "number" ? String(e.responseCode) : null,
    typeof e.message === "string" ? e.message.slice(0, 300) : "unknown error",
  ];
  return parts.filter(Boolean).join(" ");
}
