import "server-only";
import type { DbHandle } from "../db/client";
import { listMembers } from "../db/queries/members";
import { tenantSlug } from "../db/queries/webhooks";
import { env } from "../env";
import { sendMail } from "../mail/send";
import type { DisabledNotice } from "./deliver";

// When the platform switches an endpoint off, the business hears about it twice: a banner on every admin page
// (from the endpoint row itself) and this e-mail to its owners and admins, through the mail module (SMTP, or
// the operator's Outbox when there is none).

export async function mailDisabledNotice(db: DbHandle, notice: DisabledNotice): Promise<void> {
  const { members, slug } = await db.forTenant(notice.tenantId, async (tx) => ({
    members: await listMembers(tx, notice.tenantId),
    slug: await tenantSlug(tx, notice.tenantId),
  }));
  const link = `${env().MICHI_PUBLIC_URL}/admin/${slug ?? ""}/webhooks/${notice.endpointId}`;
  const to = members.filter((m) => m.role === "owner" || m.role === "admin").map((m) => m.email);
  for (const address of to) {
    await sendMail({
      to: address,
      kind: "webhook_disabled",
      tenantId: notice.tenantId,
      subject: "A webhook endpoint was switched off",
      text: [
        `Deliveries to ${notice.url} kept failing, so michi-chat switched this endpoint off.`,
        "",
        notice.reason,
        "",
        `Check the receiver, then switch the endpoint on again and redeliver what it missed: ${link}`,
      ].join("\n"),
    });
  }
}
