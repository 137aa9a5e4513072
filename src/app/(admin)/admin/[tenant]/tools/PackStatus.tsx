import type { PackHealth } from "@/lib/health/pack-health";
import type { PackView } from "@/lib/pack-settings/settings";
import { formatDate } from "@/shared/dates";

// A pack's state in words, for the Tools list and the details page: configured or not, how its recent real
// runs went (a pack failing on every visitor's call must not look fine), and the last test.

const TEST_WORDS: Record<string, string> = {
  ok: "worked",
  error: "failed",
  timeout: "timed out",
  invalid_args: "was refused its arguments",
  unknown_tool: "could not run",
};

/** "Failing: 4 of the last 6 calls failed" or "Working: 10 recent calls", with the last error beneath. */
export function PackHealthNote({ health, tz }: { health: PackHealth; tz: string }) {
  if (health.state === "ok")
    return (
      <span className="badge badge-ok" data-testid="pack-health">
        Working · {health.runs} recent call{health.runs === 1 ? "" : "s"}
        {health.failed > 0 ? `, ${health.failed} failed` : ""}
      </span>
    );
  return (
    <span className="flex flex-col gap-1" data-testid="pack-health">
      <span className="badge badge-bad">
        Failing · {health.failed} of the last {health.runs} call{health.runs === 1 ? "" : "s"} failed
      </span>
      {health.lastError ? (
        <span className="text-xs">
          Last error ({formatDate(health.lastErrorAt!, tz)}):{" "}
          <code className="break-all">{health.lastError.slice(0, 200)}</code>
        </span>
      ) : null}
    </span>
  );
}

export function PackStatus({ pack, health, tz }: { pack: PackView; health?: PackHealth; tz: string }) {
  const last = pack.lastTest;
  return (
    <span className="flex flex-wrap items-center gap-2" data-testid="pack-status">
      {pack.status === "configured" ? (
        <span className="badge badge-ok">Configured</span>
      ) : pack.status === "needs_details" ? (
        <span className="badge badge-warn">Needs details: {pack.missing}</span>
      ) : (
        <span className="badge badge-warn">Needs settings</span>
      )}
      {pack.enabled && health ? <PackHealthNote health={health} tz={tz} /> : null}
      {last ? (
        <span className={`badge ${last.outcome === "ok" ? "" : "badge-bad"}`}>
          Last test {TEST_WORDS[last.outcome] ?? last.outcome} · {formatDate(last.at, tz)}
        </span>
      ) : (
        <span className="muted text-xs">Not tested yet</span>
      )}
    </span>
  );
}
