/** Routes whose next path segment, or fragment, is a secret; `*` stands for any one segment. */
export const SECRET_ROUTES: readonly string[];
export const REDACTED: string;
/** The segments of a path as the router resolves them: decoded, `\` as `/`, no `;params`, `.`/`..` applied. */
export function pathSegments(path: string): string[];
/** The path with its secret replaced when it names a secret route in any spelling, else null. */
export function redactedPath(path: string): string | null;
/** The text with the secret segment of every secret route replaced by REDACTED. */
export function redactSecretPaths(text: string): string;
