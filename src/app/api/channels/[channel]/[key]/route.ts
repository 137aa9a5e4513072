import { handleChannelGet, handleChannelPost } from "@/lib/channels/receive";
import { getDb } from "@/lib/db";

// The WhatsApp and Telegram webhooks (docs/channels.md). The key in the URL names the connection; the
// request is verified before it is read, stored, and answered at once; its job is queued just after.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ channel: string; key: string }> };

export async function GET(req: Request, { params }: Ctx) {
  const { channel, key } = await params;
  return handleChannelGet(req, channel, key, await getDb());
}

export async function POST(req: Request, { params }: Ctx) {
  const { channel, key } = await params;
  return handleChannelPost(req, channel, key, await getDb());
}
