// A JSON POST with the visitor's token, for the panel's small endpoints (contact, feedback). A token the
// server refuses is replaced once, as for the chat stream.

import { auth } from "./identity";
import type { Session } from "./session";
import { HttpError, httpError } from "./sse";

export async function visitorPost(session: Session, url: string, body: unknown): Promise<Response> {
  const attempt = async (token: string) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth(token) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await httpError(res);
    return res;
  };
  try {
    return await attempt(await session.token());
  } catch (e) {
    if (e instanceof HttpError && e.status === 401) return attempt(await session.token(true));
    throw e;
  }
}
