import { getDb } from "@/lib/db";
import { migrationsApplied } from "@/lib/db/migrate";

export const dynamic = "force-dynamic";

/** Readiness: the database answers and every migration of this build is applied. */
export async function GET() {
  const headers = { "Cache-Control": "no-store" };
  try {
    const db = await getDb();
    await db.ping(2000);
    if (!(await migrationsApplied(db))) {
      return Response.json({ ok: false, db: "ok", migrations: "pending" }, { status: 503, headers });
    }
    return Response.json({ ok: true, db: "ok", migrations: "applied" }, { headers });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0]?.slice(0, 200) : "unreachable";
    return Response.json({ ok: false, db: reason || "unreachable" }, { status: 503, headers });
  }
}
