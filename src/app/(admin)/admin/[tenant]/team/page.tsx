import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireTenant } from "@/lib/auth/guard";
import { listMembers } from "@/lib/db/queries/members";
import { mailDelivery } from "@/lib/mail/send";
import { INVITATION_DAYS, pendingInvitations } from "@/lib/team/invitations";
import {
  changeRoleAction,
  deleteTenantAction,
  inviteMemberAction,
  removeMemberAction,
  revokeInvitationAction,
} from "./actions";
import { DeleteTenantForm, InviteMemberForm, MemberControls, RevokeInvitationForm } from "./TeamForms";

export const metadata: Metadata = { title: "Team" };

const ROLE_HELP =
  "Owners manage everything, including the team. Admins manage everything but the team. Viewers read only.";

function inviteHelp(delivery: ReturnType<typeof mailDelivery>): string {
  const base = `They get a link that works once within ${INVITATION_DAYS} days; they sign in or create an account, then accept.`;
  if (delivery === "smtp") return `${base} We e-mail it to them, and show it to you once to copy.`;
  if (delivery === "outbox")
    return `${base} No mail server is configured: the mail waits in the operator's Outbox, and you copy the link yourself.`;
  return `${base} Mail is off on this installation: you copy the link and send it yourself, and a new account needs a mailed confirmation, so a person without one asks the operator for an account first.`;
}

export default async function TeamPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const members = await ctx.db.forTenant(ctx.tenant.id, (tx) => listMembers(tx, ctx.tenant.id));
  const canManage = ctx.role === "owner";
  const invitations = canManage ? await pendingInvitations(ctx) : [];
  const s = ctx.tenant.slug;
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader title="Team" description={ROLE_HELP} />
      {!canManage ? (
        <p role="note" className="card text-sm">
          Only owners can change the team. You are {ctx.role === "admin" ? "an admin" : "a viewer"} here.
        </p>
      ) : null}
      <Card id="members" title="Members">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Members of {ctx.tenant.name}</caption>
          <thead>
            <tr className="border-b border-[var(--border)]">
              <th scope="col" className="py-2 pr-3">
                Person
              </th>
              <th scope="col" className="py-2 pr-3">
                {canManage ? "Role and actions" : "Role"}
              </th>
              <th scope="col" className="py-2">
                Member since
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.userId} className="border-b border-[var(--border)] align-top">
                <td className="py-3 pr-3">
                  <div className="font-medium">{m.name || m.email}</div>
                  {m.name ? <div className="muted">{m.email}</div> : null}
                  {m.userId === ctx.user.id ? <div className="text-xs muted">(you)</div> : null}
                </td>
                <td className="py-3 pr-3">
                  {canManage ? (
                    <MemberControls
                      member={{ userId: m.userId, email: m.email, role: m.role }}
                      changeRole={changeRoleAction.bind(null, s)}
                      remove={removeMemberAction.bind(null, s)}
                    />
                  ) : (
                    m.role
                  )}
                </td>
                <td className="py-3">
                  <When at={m.since} tz={ctx.tenant.timeZone} day />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      {canManage ? (
        <Card id="invite" title="Invite a member" description={inviteHelp(mailDelivery())}>
          <InviteMemberForm action={inviteMemberAction.bind(null, s)} />
        </Card>
      ) : null}
      {canManage && invitations.length > 0 ? (
        <Card id="invitations" title="Pending invitations">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Invitations not yet accepted</caption>
            <thead>
              <tr className="border-b border-[var(--border)]">
                <th scope="col" className="py-2 pr-3">
                  E-mail
                </th>
                <th scope="col" className="py-2 pr-3">
                  Role
                </th>
                <th scope="col" className="py-2 pr-3">
                  Expires
                </th>
                <th scope="col" className="py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr key={i.id} className="border-b border-[var(--border)] align-top">
                  <td className="py-3 pr-3">{i.email}</td>
                  <td className="py-3 pr-3">{i.role}</td>
                  <td className="py-3 pr-3">
                    <When at={i.expiresAt} tz={ctx.tenant.timeZone} day />
                  </td>
                  <td className="py-3">
                    <RevokeInvitationForm
                      invitation={{ id: i.id, email: i.email }}
                      action={revokeInvitationAction.bind(null, s)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      ) : null}
      {canManage ? (
        <Card id="danger" title="Delete this business">
          <DeleteTenantForm action={deleteTenantAction.bind(null, s)} slug={s} />
        </Card>
      ) : null}
    </div>
  );
}
