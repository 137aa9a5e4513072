import Link from "next/link";
import { Card } from "@/components/ui";
import { When } from "@/components/ui/When";
import type { loadKnowledgeView } from "@/lib/knowledge/views";
import { resyncAction } from "./actions";
import { ActionButton } from "./KnowledgeForms";
import { REASONS } from "./reasons";
import { idleSyncStatus } from "./sync-status";

type KnowledgeView = Awaited<ReturnType<typeof loadKnowledgeView>>;

/** The website source: pages found, indexed, skipped (and why), failed; the sync's progress and schedule. */
export function WebsiteCard({
  view,
  slug: s,
  canEdit,
  tz,
}: {
  view: KnowledgeView;
  slug: string;
  canEdit: boolean;
  /** The business's time zone, for the sync times. */
  tz: string;
}) {
  const src = view.source;
  const c = view.counts;
  const running = src && src.syncState !== "idle";
  const found = c?.found ?? 0;
  return (
    <Card id="website" title="Your website">
      {!src ? (
        <p className="text-sm">
          No website yet. Turn on{" "}
          <Link href={`/admin/${s}/tools`} className="underline">
            Your website and documents
          </Link>{" "}
          on the Tools page and give it your start page or sitemap.
        </p>
      ) : (
        <div className="space-y-3 text-sm">
          <p className="break-all">
            <span className="muted">{src.sitemapUrl ? "Sitemap" : "Start page"}:</span>{" "}
            {src.sitemapUrl ?? src.startUrl}
          </p>
          <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4" aria-label="Pages">
            <div>
              <dt className="muted">Found</dt>
              <dd data-testid="count-found">{found}</dd>
            </div>
            <div>
              <dt className="muted">Indexed</dt>
              <dd data-testid="count-indexed">{c?.indexed ?? 0}</dd>
            </div>
            <div>
              <dt className="muted">Skipped</dt>
              <dd data-testid="count-skipped">
                {c?.skipped ?? 0}
                {c && c.skipped > 0 ? (
                  <span className="muted">
                    {" "}
                    (
                    {Object.entries(c.byReason)
                      .filter(([r]) => REASONS[r])
                      .map(([r, n]) => `${n} ${REASONS[r]}`)
                      .join(", ")}
                    )
                  </span>
                ) : null}
              </dd>
            </div>
            <div>
              <dt className="muted">Failed</dt>
              <dd data-testid="count-failed">{c?.failed ?? 0}</dd>
            </div>
          </dl>
          {running ? (
            <div>
              <p role="status">
                Syncing: {src.runDone} of {src.runQueued || "?"} pages
              </p>
              <progress
                max={Math.max(1, src.runQueued)}
                value={src.runDone}
                className="w-full"
                aria-label="Sync progress"
              />
            </div>
          ) : (
            <p role="status" data-testid="sync-state">
              {idleSyncStatus(src)}
            </p>
          )}
          <p>
            <span className="muted">Last sync:</span>{" "}
            <span data-testid="last-sync">
              {src.lastSyncAt ? <When at={src.lastSyncAt} tz={tz} seconds /> : "never"}
            </span>
            {" · "}
            <span className="muted">Next:</span>{" "}
            {src.nextSyncAt ? <When at={src.nextSyncAt} tz={tz} /> : "only when you ask"}
          </p>
          {src.runOverCap > 0 ? (
            <p>
              The page cap ({src.pageCap}) left {src.runOverCap} more pages out.
            </p>
          ) : null}
          {src.lastSyncError ? <p className="field-error">{src.lastSyncError}</p> : null}
          {canEdit ? (
            <ActionButton
              action={resyncAction.bind(null, s)}
              fields={{}}
              label="Re-sync now"
              pendingText="Starting…"
            />
          ) : null}
        </div>
      )}
    </Card>
  );
}
