/** Files under `root` that should import "server-only" and do not (see server-only-check.mjs). */
export function missingServerOnly(root: string): string[];
