import { floorTurn } from "@/lib/bench/floor";
import { env } from "@/lib/env";

// The benchmark's framework floor (src/lib/bench/floor.ts): 404 unless MICHI_BENCH_FLOOR_URL is set.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request) {
  return (await floorTurn(req, env())) ?? new Response(null, { status: 404 });
}
