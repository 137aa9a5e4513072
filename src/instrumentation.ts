export async function register() {
  // Build workers load this too; only a running server boots.
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { boot } = await import("./lib/boot");
  await boot();
}
