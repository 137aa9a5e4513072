import { handlePreflight } from "@/widget/server/chat";
import { handleConfirm } from "@/widget/server/confirm";
import { defaultWidgetDeps } from "@/widget/server/deps";

// The visitor's Confirm or Cancel on a confirmation card (issue 41); answers with the next round as SSE.
// See docs/tool-packs.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string; id: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key, id } = await params;
  return handleConfirm(req, key, id, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
