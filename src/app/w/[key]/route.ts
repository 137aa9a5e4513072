import { defaultWidgetDeps } from "@/widget/server/deps";
import { handlePanel } from "@/widget/server/panel-page";

// The chat panel page, framed by the loader. A route handler rather than a page, so it sets its own
// Content-Security-Policy (frame-ancestors from the tenant's sites) and nothing of the admin layout loads.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ key: string }> }) {
  const { key } = await params;
  return handlePanel(req, key, await defaultWidgetDeps());
}
