import { handleChat, handlePreflight } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";

// The widget's chat endpoint: answers text/event-stream (chip, delta, done, error). See docs/chat-engine.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleChat(req, key, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
