/** The channel names a branch could test (see channel-branch-check.mjs). */
export const CHANNEL_NAMES: string[];
/** Lines under `root`'s src/ that branch on a channel's name outside an adapter's folder: "file:line: code". */
export function channelBranches(root: string): string[];
