import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Card, PageHeader } from "@/components/ui";
import { requireOperator } from "@/lib/auth/guard";
import { getTenantById } from "@/lib/db/queries/operator";
import { env } from "@/lib/env";
import { operatorTeamView } from "@/lib/tenants/operator-team";
import { formatDate } from "@/shared/dates";
import {
  resendInvitationAction,
  setKnowledgeLimitsAction,
  setLimitsAction,
  setStatusAction,
} from "../actions";
import { type LimitField, LimitsForm, StatusForm } from "../OperatorForms";
import { OperatorTeamCard } from "./OperatorTeamCard";

export const metadata: Metadata = { title: "Business settings" };

export default async function OperatorTenantPage({ params }: { params: Promise<{ tenantId: string }> }) {
  const { tenantId } = await params;
  const { db, user } = await requireOperator();
  const tenant = await getTenantById(db.platform, tenantId);
  if (!tenant) notFound();
  const team = await operatorTeamView({ db, user }, tenant.id);
  const e = env();
  const own = tenant.rateLimits ?? {};
  const fields: LimitField[] = [
    {
      name: "monthlyTokenBudget",
      label: "Monthly token budget",
      value: tenant.monthlyTokenBudget,
      placeholder: e.MICHI_DEFAULT_MONTHLY_TOKENS,
      help: `Empty: the platform default (${e.MICHI_DEFAULT_MONTHLY_TOKENS.toLocaleString("en")}). 0: no budget.`,
    },
    {
      name: "visitorPerMin",
      label: "Messages per visitor per minute",
      value: own.visitorPerMin ?? null,
      placeholder: e.MICHI_RATE_VISITOR_PER_MIN,
    },
    {
      name: "ipPerMin",
      label: "Messages per IP per minute",
      value: own.ipPerMin ?? null,
      placeholder: e.MICHI_RATE_IP_PER_MIN,
    },
    {
      name: "tenantPerMin",
      label: "Messages per minute, whole business",
      value: own.tenantPerMin ?? null,
      placeholder: e.MICHI_RATE_TENANT_PER_MIN,
    },
    {
      name: "maxStreams",
      label: "Simultaneous answers",
      value: own.maxStreams ?? null,
      placeholder: e.MICHI_MAX_STREAMS_PER_TENANT,
    },
  ];
  return (
    <div className="max-w-3xl space-y-6">
      <p>
        <Link href="/admin/operator" className="text-sm underline">
          ← All businesses
        </Link>
      </p>
      <PageHeader
        title={tenant.name}
        description={`/admin/${tenant.slug} · created ${formatDate(tenant.createdAt, tenant.timeZone)}`}
      />
      <Card
        id="status"
        title={`Status: ${tenant.status}`}
        description={
          tenant.status === "suspended"
            ? "The widget does not answer visitors. The team can still sign in and change settings."
            : "Suspending stops the widget from answering visitors; the team keeps access to the admin."
        }
      >
        <StatusForm action={setStatusAction} tenantId={tenant.id} status={tenant.status} />
      </Card>
      <OperatorTeamCard team={team} tenantId={tenant.id} timeZone={tenant.timeZone} />
      <Card id="limits" title="Budget and rate limits">
        <LimitsForm action={setLimitsAction} tenantId={tenant.id} fields={fields} />
      </Card>
      <Card
        id="knowledge"
        title="Knowledge limits"
        description="How much the business may upload as documents, and the most website pages it may index."
      >
        <LimitsForm
          action={setKnowledgeLimitsAction}
          tenantId={tenant.id}
          submitLabel="Save knowledge limits"
          fields={[
            {
              name: "uploadQuotaMb",
              label: "Document uploads (MB, whole business)",
              value: Math.round(tenant.knowledgeUploadQuota / 1024 / 1024),
              placeholder: 100,
              help: "100 MB unless you change it; each file is at most 20 MB.",
            },
            {
              name: "pageCap",
              label: "Most website pages",
              value: tenant.knowledgePageCap,
              placeholder: 5000,
              help: "The business chooses its own page cap up to this (1 to 5,000).",
            },
          ]}
        />
      </Card>
    </div>
  );
}
