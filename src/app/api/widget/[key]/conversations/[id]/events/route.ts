import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleLiveEvents } from "@/widget/server/events";
import { handleHistoryPreflight } from "@/widget/server/history";

// The visitor's live stream of one conversation (a person's replies, state changes), resumable by seq.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string; id: string }> };

export async function GET(req: Request, { params }: Ctx) {
  const { key, id } = await params;
  return handleLiveEvents(req, key, id, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleHistoryPreflight(req, key, await defaultWidgetDeps());
}
