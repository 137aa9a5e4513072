import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from "@/lib/db/queries/retention";
import { zoneOr } from "@/shared/dates";
import { saveKindRetentionAction, saveRetentionAction, saveTimeZoneAction } from "./actions";
import { KindRetentionForm } from "./KindRetentionForm";
import { RetentionForm } from "./RetentionForm";
import { TimeZoneForm } from "./TimeZoneForm";

/** The zones this runtime knows, UTC first (it is not in the list Intl gives). */
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];

export const metadata: Metadata = { title: "Data & retention" };

// How long the business keeps its visitors' conversations: a setting, so it lives with the settings rather
// than on the Usage page, whose figures it only indirectly affects.

export default async function SettingsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const canEdit = roleAtLeast(ctx.role, "admin");
  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader
        title="Data & retention"
        description="How long conversations with your visitors are kept, and the time zone dates are shown in."
      />
      <Card id="retention" title="Retention">
        {canEdit ? (
          <RetentionForm
            action={saveRetentionAction.bind(null, ctx.tenant.slug)}
            days={ctx.tenant.retentionDays}
            min={RETENTION_MIN_DAYS}
            max={RETENTION_MAX_DAYS}
          />
        ) : (
          <p className="text-sm">
            Conversations are kept for <strong>{ctx.tenant.retentionDays} days</strong> after their last
            message. Only an admin or owner can change this.
          </p>
        )}
      </Card>
      <Card id="kind-retention" title="Contact requests and notes">
        {canEdit ? (
          <KindRetentionForm
            action={saveKindRetentionAction.bind(null, ctx.tenant.slug)}
            leadDays={ctx.tenant.leadRetentionDays}
            noteDays={ctx.tenant.noteRetentionDays}
            min={RETENTION_MIN_DAYS}
            max={RETENTION_MAX_DAYS}
          />
        ) : (
          <p className="text-sm">
            Contact requests are kept{" "}
            <strong>
              {ctx.tenant.leadRetentionDays === null
                ? "until deleted"
                : `for ${ctx.tenant.leadRetentionDays} days`}
            </strong>
            , internal notes{" "}
            <strong>
              {ctx.tenant.noteRetentionDays === null
                ? "as long as their conversation"
                : `for ${ctx.tenant.noteRetentionDays} days`}
            </strong>
            . Only an admin or owner can change this.
          </p>
        )}
        <p className="help mt-3">
          A visitor who asks for a copy of their data or for it to be erased: see{" "}
          <a className="link" href={`/admin/${ctx.tenant.slug}/privacy`}>
            Visitor data
          </a>
          .
        </p>
      </Card>
      <Card id="time-zone-card" title="Time zone">
        {canEdit ? (
          <TimeZoneForm
            action={saveTimeZoneAction.bind(null, ctx.tenant.slug)}
            zone={zoneOr(ctx.tenant.timeZone)}
            zones={ZONES}
          />
        ) : (
          <p className="text-sm">
            Dates are shown in <strong>{zoneOr(ctx.tenant.timeZone).replaceAll("_", " ")}</strong>. Only an
            admin or owner can change this.
          </p>
        )}
      </Card>
    </div>
  );
}
