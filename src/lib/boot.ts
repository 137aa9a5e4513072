import "server-only";
import { generatePassword } from "./auth/password";
import { getDb } from "./db";
import { migrate } from "./db/migrate";
import { env, isEnvError } from "./env";
import { log } from "./log";
import { processSlot } from "./process-slot";
import { seed } from "./tenants/seed";

// Start-up, once per process: configuration, database, migrations, seed. Anything wrong stops the process
// with one readable message rather than a half-working server.
const booting = processSlot<Promise<void>>("Boot");

export function boot(): Promise<void> {
  return booting.use(run);
}

async function run(): Promise<void> {
  try {
    const e = env();
    process.env.NEXTAUTH_URL ??= e.MICHI_PUBLIC_URL;
    const { checkPackListAtStartup } = await import("./tools/startup");
    checkPackListAtStartup();
    const db = await getDb();
    const applied = await migrate(db);
    const seeded = await seed(db, e, () => generatePassword());
    await import("./retention"); // registers the retention purge before the jobs start
    // The durable queue (webhook deliveries, reset, sign-up and lead mails, knowledge syncs) before the first
    // request, so requests can enqueue.
    const { startProcessWebhookQueue } = await import("./webhooks/worker");
    const { passwordResetWorkers } = await import("./accounts/password-reset");
    const { signUpMailWorkers } = await import("./accounts/pending-sign-up");
    const { leadMailWorkers } = await import("./leads/notify");
    const { liveEscalationWorkers } = await import("./live/escalation");
    const { processKnowledgeWorkers, startKnowledge } = await import("./knowledge/runtime");
    const { defaultChannelWorkers } = await import("./channels/runtime");
    const { processTestRunWorkers } = await import("./test-questions/runtime");
    const { startProcessQueue } = await import("./queue");
    const queue = () => startProcessQueue(db, { workers: [] });
    await startProcessWebhookQueue(db, {
      extraWorkers: [
        ...passwordResetWorkers(db),
        ...signUpMailWorkers(db),
        ...leadMailWorkers(db),
        ...liveEscalationWorkers(db),
        ...processKnowledgeWorkers(db, queue),
        ...defaultChannelWorkers(db, e),
        ...processTestRunWorkers(db, e),
      ],
    });
    startKnowledge(db, queue);
    const { registerQuietSweep } = await import("./webhooks/quiet");
    registerQuietSweep(db);
    // A channel message stored by a webhook whose process died before queueing its job.
    const { registerInboundSweep } = await import("./channels/enqueue");
    registerInboundSweep(db);
    const { registerHealthNotices } = await import("./health/notices");
    registerHealthNotices(db);
    const { startBackgroundJobs } = await import("./jobs");
    startBackgroundJobs();
    const where = e.DATABASE_URL
      ? "Postgres (DATABASE_URL)"
      : `embedded PGlite in ${e.MICHI_DATA_DIR}/pglite, on its own thread`;
    const lines = [
      "",
      "  michi-chat is ready",
      `  Admin:     ${e.MICHI_PUBLIC_URL}/admin`,
      ...(e.MICHI_DEMO ? [`  Demo page: ${e.MICHI_PUBLIC_URL}/demo`] : []),
      `  Database:  ${where}${applied ? ` (${applied} migration${applied === 1 ? "" : "s"} applied)` : ""}`,
      seeded.generatedPassword
        ? `  Operator:  ${seeded.adminEmail} / ${seeded.generatedPassword}   (generated now and shown only once)`
        : `  Operator:  ${seeded.adminEmail}`,
      "",
    ];
    if (!e.isProduction || seeded.generatedPassword) console.log(lines.join("\n"));
    else {
      log().info({ applied }, "michi-chat ready");
      // Lines are gathered before they are written (src/lib/log.ts); this one is awaited by operators.
      log().flush();
    }
  } catch (err) {
    if (isEnvError(err)) console.error(`\n${err.message}\n`);
    else
      console.error(
        "\nmichi-chat could not start:",
        err instanceof Error ? (err.stack ?? err.message) : err,
        "\n",
      );
    process.exit(1);
  }
}
