import { handlePreflight, handleSession } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";

// Issues or renews a visitor token: {"token","expiresAt"}. No cookies: the widget lives in a third-party iframe.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleSession(req, key, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
