import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import { AnswersCard } from "./AnswersCard";
import { DocumentsCard } from "./DocumentsCard";
import { PagesCard } from "./PagesCard";
import { TestQuestionCard } from "./TestQuestionCard";
import { WebsiteCard } from "./WebsiteCard";

export const metadata: Metadata = { title: "Knowledge" };

function one(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v)?.slice(0, 200) ?? "";
}

export default async function KnowledgePage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { tenant: slug } = await params;
  const sp = await searchParams;
  const ctx = await requireTenant(slug);
  const canEdit = roleAtLeast(ctx.role, "admin");
  const q = one(sp.q);
  const ask = one(sp.ask).trim();
  // "Write the answer" on Unanswered questions opens this page with the visitor's question filled in.
  const question = one(sp.question).trim();
  const view = await loadKnowledgeView(ctx, { search: q });
  const test = ask ? await askTestQuestion(ctx, ask) : null;
  const s = ctx.tenant.slug;
  const running = view.source && view.source.syncState !== "idle";
  return (
    <div className="max-w-5xl space-y-6">
      {running ? <meta httpEquiv="refresh" content="3" /> : null}
      <PageHeader
        title="Knowledge"
        description="What the assistant knows from your own website and the answers you wrote. The website is set up on the Tools page (Your website and documents)."
      />
      <WebsiteCard view={view} slug={s} canEdit={canEdit} tz={ctx.tenant.timeZone} />
      <TestQuestionCard q={q} ask={ask} test={test} />
      <PagesCard view={view} slug={s} canEdit={canEdit} q={q} />
      <DocumentsCard view={view} slug={s} canEdit={canEdit} />
      <AnswersCard view={view} slug={s} canEdit={canEdit} question={question} />
    </div>
  );
}
