export const dynamic = "force-dynamic";

/** Liveness only: the process answers. It never touches the database, so a database outage restarts nothing. */
export function GET() {
  return Response.json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
}
