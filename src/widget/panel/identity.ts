// The host page's verified-visitor token (michi("identify", token), docs/widget.md "Verified visitors"), sent
// beside the visitor token with every request while the page gave one, so the server checks it each time and
// a refused one is refused in words, never ignored. It is kept in memory only: the page gives it at each load.

let identity: string | undefined;

export function setIdentity(token: string | undefined): void {
  identity = token;
}

/** The headers of a widget request made with the visitor's token. */
export function auth(token: string | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (token) h.authorization = `Bearer ${token}`;
  if (identity) h["x-michi-identity"] = identity;
  return h;
}
