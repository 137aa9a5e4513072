import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TenantContext } from "@/lib/auth/access";
import type { DbHandle } from "@/lib/db/client";
import { findTenantBySlug } from "@/lib/db/queries/tenants";
import { findUserByEmail } from "@/lib/db/queries/users";
import { createWebhookEndpoint } from "@/lib/webhooks/endpoints";
import { E2E } from "./e2e-env";
import { startSmtpServer, type TestSmtpServer } from "./smtp-server";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

// The business side of the e2e world's hand-off spec: a real SMTP server the app sends lead mails to, and an
// https webhook receiver (tests/support/smtp-server.ts and webhook-receiver.ts, each built from its system's
// own documentation). Both live in the world process; the specs run in other processes, so a small loopback
// HTTP server shows them what arrived: GET /mails and GET /hooks, as JSON.

export type HandoffWorld = {
  smtp: TestSmtpServer;
  hooks: WebhookReceiver;
  /** http://127.0.0.1:PORT of the read-only view for the specs. */
  inboxUrl: string;
  close(): Promise<void>;
};

export async function startHandoffWorld(): Promise<HandoffWorld> {
  const smtp = await startSmtpServer();
  const hooks = await startWebhookReceiver();
  const view = createServer((req, res) => {
    const body =
      req.url === "/mails"
        ? smtp.received.map((m) => ({
            to: m.envelope.to,
            subject: m.subject ?? "",
            text: m.text ?? "",
            replyTo: m.replyTo?.text ?? "",
          }))
        : req.url === "/hooks"
          ? hooks.received.map((h) => ({ path: h.path, headers: h.headers, body: h.body }))
          : null;
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => view.listen(0, "127.0.0.1", resolve));
  return {
    smtp,
    hooks,
    inboxUrl: `http://127.0.0.1:${(view.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => view.close(() => resolve()));
      await hooks.close();
      await smtp.close();
    },
  };
}

/**
 * The café's webhook endpoint for lead.created and feedback.created, created through the same use case as the
 * admin's form (its URL is checked against the allowlist in this process's environment). Returns the signing
 * secret, which the spec needs to verify what arrives.
 */
export async function seedCafeWebhook(db: DbHandle, url: string): Promise<string> {
  const tenant = await findTenantBySlug(db.platform, E2E.cafe.slug);
  const owner = await findUserByEmail(db.platform, E2E.operator.email);
  if (!tenant || !owner) throw new Error("seed the café and its owner first");
  const ctx = {
    db,
    tenant,
    role: "owner",
    user: {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      isOperator: false,
      mustChangePassword: false,
    },
  } as TenantContext;
  const created = await createWebhookEndpoint(ctx, {
    url,
    description: "e2e CRM",
    events: ["lead.created", "feedback.created"],
  });
  return created.secret;
}
