import { Card } from "@/components/ui";
import type { OperatorTeamView } from "@/lib/tenants/operator-team";
import { formatDate } from "@/shared/dates";
import { resendInvitationAction } from "../actions";
import { ResendInvitationForm } from "../OperatorForms";

/** A business's team as the operator sees it: members, and invitations nobody answered with "Send again". */
export function OperatorTeamCard({
  team,
  tenantId,
  timeZone,
}: {
  team: OperatorTeamView;
  tenantId: string;
  timeZone: string;
}) {
  return (
    <Card
      id="team"
      title="Team"
      description={
        team.members.length === 0
          ? "No member yet: the business has no one who can sign in to it until an invitation is accepted."
          : undefined
      }
    >
      {team.members.length > 0 ? (
        <ul className="space-y-1 text-sm">
          {team.members.map((m) => (
            <li key={m.userId}>
              {m.name ? `${m.name} · ` : ""}
              {m.email} · {m.role}
            </li>
          ))}
        </ul>
      ) : null}
      {team.invitations.length > 0 ? (
        <ul className="mt-3 space-y-3 text-sm" aria-label="Invitations not answered">
          {team.invitations.map((i) => (
            <li key={i.id} className="flex flex-wrap items-center justify-between gap-2">
              <span>
                Invited: {i.email} · {i.role} ·{" "}
                {i.expired
                  ? `expired ${formatDate(i.expiresAt, timeZone)}`
                  : `link valid until ${formatDate(i.expiresAt, timeZone)}`}
              </span>
              <ResendInvitationForm
                action={resendInvitationAction}
                tenantId={tenantId}
                invitationId={i.id}
                email={i.email}
              />
            </li>
          ))}
        </ul>
      ) : team.members.length === 0 ? (
        <p className="text-sm muted">
          No invitation is waiting either; create the business again for its owner.
        </p>
      ) : null}
    </Card>
  );
}
