import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import type { TenantContext } from "@/lib/auth/access";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { isAppError } from "@/lib/errors";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import { AnswersCard } from "./AnswersCard";
import { DocumentsCard } from "./DocumentsCard";
import { PagesCard } from "./PagesCard";
import { TestQuestionCard } from "./TestQuestionCard";
import { WebsiteCard } from "./WebsiteCard";

export const metadata: Metadata = { title: "Knowledge" };

function one(v: string | string[] | undefined, max = 200): string {
  return (Array.isArray(v) ? v[0] : v)?.slice(0, max) ?? "";
}

/** Every value of a repeated field; lengths are the use case's to judge (and to say what is wrong). */
function many(v: string | string[] | undefined): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).slice(0, 5).map((s) => s.slice(0, 1000));
}

async function testOrError(ctx: TenantContext, ask: string, also: string[]) {
  try {
    return { test: await askTestQuestion(ctx, { question: ask, also }) };
  } catch (err) {
    if (isAppError(err) && err.code === "invalid_input") {
      const field = Object.keys(err.details?.fieldErrors ?? {})[0] === "also" ? "also" : "ask";
      return { error: { field, message: err.message } as const };
    }
    throw err;
  }
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
  // The test question and its other wordings: too long or repeated is said on the card, not cut off.
  const ask = one(sp.ask, 1000).trim();
  const also = many(sp.also);
  // "Write the answer" on Unanswered questions opens this page with the visitor's question filled in.
  const question = one(sp.question).trim();
  const view = await loadKnowledgeView(ctx, { search: q });
  const tested = ask || also.some((a) => a.trim()) ? await testOrError(ctx, ask, also) : null;
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
      <TestQuestionCard q={q} ask={ask} also={also} {...tested} />
      <PagesCard view={view} slug={s} canEdit={canEdit} q={q} />
      <DocumentsCard view={view} slug={s} canEdit={canEdit} />
      <AnswersCard view={view} slug={s} canEdit={canEdit} question={question} />
    </div>
  );
}
