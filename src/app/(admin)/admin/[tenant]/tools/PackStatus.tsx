import type { PackView } from "@/lib/pack-settings/settings";
import { formatDate } from "@/shared/dates";

// A pack's state in words, for the Tools list and the details page: configured or not, and the last test.

const TEST_WORDS: Record<string, string> = {
  ok: "worked",
  error: "failed",
  timeout: "timed out",
  invalid_args: "was refused its arguments",
  unknown_tool: "could not run",
};

export function PackStatus({ pack }: { pack: PackView }) {
  const last = pack.lastTest;
  return (
    <span className="flex flex-wrap items-center gap-2" data-testid="pack-status">
      {pack.status === "configured" ? (
        <span className="badge badge-ok">Configured</span>
      ) : (
        <span className="badge badge-warn">Needs settings</span>
      )}
      {last ? (
        <span className={`badge ${last.outcome === "ok" ? "" : "badge-bad"}`}>
          Last test {TEST_WORDS[last.outcome] ?? last.outcome} · {formatDate(last.at)}
        </span>
      ) : (
        <span className="muted text-xs">Not tested yet</span>
      )}
    </span>
  );
}
