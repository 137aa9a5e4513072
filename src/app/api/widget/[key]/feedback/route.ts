import { handlePreflight } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleFeedback } from "@/widget/server/feedback";

// A visitor's rating of one answer of their own conversation: 204. See docs/widget.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleFeedback(req, key, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
