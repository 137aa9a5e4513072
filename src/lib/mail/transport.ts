import "server-only";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../env";
import { processSlot } from "../process-slot";

// How mail leaves this installation. One nodemailer transport per SMTP URL, kept on globalThis because Next
// may load this module in several bundles. Not pooled: mails are few, and a pool would hold sockets open.

/** smtp: through MICHI_SMTP_URL. outbox: kept for the operator (no SMTP). off: dropped (production, no SMTP). */
export type MailDelivery = "smtp" | "outbox" | "off";

export function mailDelivery(): MailDelivery {
  const e = env();
  if (e.MICHI_SMTP_URL) return "smtp";
  return e.MICHI_MAIL_OUTBOX ? "outbox" : "off";
}

/** The SMTP server as the operator may see it: scheme, host and port, never the user or password. */
export function smtpServerLabel(): string | null {
  const url = env().MICHI_SMTP_URL;
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(an unreadable URL)";
  }
}

const transports = processSlot<Map<string, Transporter>>("MailTransports");

export function smtpTransport(url: string): Transporter {
  const byUrl = transports.use(() => new Map());
  let t = byUrl.get(url);
  if (!t) {
    // nodemailer reads user, password, host, port and smtps:// (TLS from the start) from the URL itself.
    // Its defaults wait up to two minutes for a silent server; a person is waiting on the other side here.
    t = nodemailer.createTransport({
      url,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    byUrl.set(url, t);
  }
  return t;
}
