// The one-line state of a website source when no sync is running, in the words the Knowledge page shows.

export type IdleSource = { lastSyncAt: Date | string | null; lastSyncError: string | null };

/**
 * "Up to date" only after a sync that ended cleanly: beside a failed sync's reason it read as a contradiction,
 * and a business could not tell whether visitors were still being answered (they are, from the pages indexed
 * before: a failed sync never empties the index).
 */
export function idleSyncStatus(src: IdleSource): string {
  if (!src.lastSyncAt) return "Not synced yet";
  if (src.lastSyncError)
    return "The last sync had a problem (below); the pages indexed before still answer visitors";
  return "Up to date";
}
