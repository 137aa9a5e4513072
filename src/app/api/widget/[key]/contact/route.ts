import { handlePreflight } from "@/widget/server/chat";
import { defaultWidgetDeps } from "@/widget/server/deps";
import { handleLeadRequest } from "@/widget/server/lead";

// A visitor's request to be contacted by a person: 201 with the confirmation in their language. See docs/widget.md.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ key: string }> };

export async function POST(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handleLeadRequest(req, key, await defaultWidgetDeps());
}

export async function OPTIONS(req: Request, { params }: Ctx) {
  const { key } = await params;
  return handlePreflight(req, key, await defaultWidgetDeps());
}
