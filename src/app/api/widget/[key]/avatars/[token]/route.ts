import { handleAgentAvatar } from "@/widget/server/avatar";
import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleHistoryPreflight } from "@/widget/server/history";

// The photo of a person who joined the visitor's conversation, by the opaque address the live event or the
// history gave (issue #28). See docs/handoff.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string; token: string }> };

export async function GET(req: Request, { params }: Ctx) {
  const { key, token } = await params;
  return handleAgentAvatar(req, key, token, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleHistoryPreflight(req, key, await defaultWidgetDeps());
}
