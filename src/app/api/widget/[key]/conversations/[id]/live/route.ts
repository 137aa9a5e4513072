import { handlePreflight } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleLiveRequest } from "@/widget/server/live-request";

// The visitor asks for a person in this conversation (issue #28): waiting, or the contact form when nobody is
// available. See docs/handoff.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string; id: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key, id } = await params;
  return handleLiveRequest(req, key, id, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
