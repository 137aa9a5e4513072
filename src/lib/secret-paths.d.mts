/** Routes whose next path segment, or fragment, is a secret. */
export const SECRET_ROUTES: readonly string[];
export const REDACTED: string;
/** The text with the secret segment of every secret route replaced by REDACTED. */
export function redactSecretPaths(text: string): string;
