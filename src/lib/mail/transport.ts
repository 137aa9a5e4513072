import "server-only";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../env";

// How mail leaves this installation. One nodemailer transport per SMTP URL, kept on globalThis because Next
// may load this module in several bundles. Not pooled: mails are few, and a pool would hold sockets open.

/** smtp: through MICHI_SMTP_URL. outbox: kept for the operator (no SMTP). off: dropped (production, no SMTP). */
export type MailDelivery = "smtp" | "outbox" | "off";

export function mailDelivery(): MailDelivery {
  const e = env();
  if (e.MICHI_SMTP_URL) return "smtp";
  return e.MICHI_MAIL_OUTBOX ? "outbox" : "off";
}

const g = globalThis as unknown as { __michiMailTransports?: Map<string, Transporter> };

export function smtpTransport(url: string): Transporter {
  g.__michiMailTransports ??= new Map();
  let t = g.__michiMailTransports.get(url);
  if (!t) {
    // nodemailer reads user, password, host, port and smtps:// (TLS from the start) from the URL itself.
    // Its defaults wait up to two minutes for a silent server; a person is waiting on the other side here.
    t = nodemailer.createTransport({
      url,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    g.__michiMailTransports.set(url, t);
  }
  return t;
}
