import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { When } from "@/components/ui/When";
import { requireTenant } from "@/lib/auth/guard";
import { listMembers } from "@/lib/db/queries/members";
import { addMemberAction, changeRoleAction, deleteTenantAction, removeMemberAction } from "./actions";
import { AddMemberForm, DeleteTenantForm, MemberControls } from "./TeamForms";

export const metadata: Metadata = { title: "Team" };

const ROLE_HELP =
  "Owners manage everything, including the team. Admins manage everything but the team. Viewers read only.";

export default async function TeamPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const members = await ctx.db.forTenant(ctx.tenant.id, (tx) => listMembers(tx, ctx.tenant.id));
  const canManage = ctx.role === "owner";
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
                  <When at={m.since} day />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      {canManage ? (
        <Card
          id="add-member"
          title="Add a member"
          description="An existing account is added as it is; for a new e-mail we create an account with a one-time password you hand over."
        >
          <AddMemberForm action={addMemberAction.bind(null, s)} />
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
