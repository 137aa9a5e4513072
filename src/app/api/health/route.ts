import { getDb } from "@/lib/db";

export const dynamic = "force-dynamic";

export async function GET() {
  try {
    const db = await getDb();
    await db.ping(2000);
    return Response.json({ ok: true, db: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0]?.slice(0, 200) : "unreachable";
    return Response.json(
      { ok: false, db: reason || "unreachable" },
      { status: 503, headers: { "Cache-Control": "no-store" } },
    );
  }
}
