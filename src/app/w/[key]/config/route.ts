import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleLauncherConfig } from "@/widget/server/panel-page";

// The launcher's colour, side and labels, fetched by public/widget.js from the host page.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ key: string }> }) {
  const { key } = await params;
  return handleLauncherConfig(req, key, await defaultWidgetDeps());
}
