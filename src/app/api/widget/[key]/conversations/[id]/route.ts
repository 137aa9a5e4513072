import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleHistory, handleHistoryPreflight } from "@/widget/server/history";

// The visitor's own earlier messages of one conversation, for the panel after a reload.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string; id: string }> };

export async function GET(req: Request, { params }: Ctx) {
  const { key, id } = await params;
  return handleHistory(req, key, id, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleHistoryPreflight(req, key, await defaultWidgetDeps());
}
