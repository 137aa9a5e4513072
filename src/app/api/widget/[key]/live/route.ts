import { handlePreflight } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleLiveStart } from "@/widget/server/live-request";

// "Talk to a person" from the panel's menu (issue #28), also before the visitor's first message: waiting for
// a person (the conversation is created when someone can take it), or the contact form when nobody can.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleLiveStart(req, key, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
