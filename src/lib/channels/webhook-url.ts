import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import { env } from "../env";

/** The address the provider posts to: the platform's public URL and the connection's random key. */
export function webhookUrl(
  conn: Pick<ConnectionRow, "channel" | "key">,
  publicUrl = env().MICHI_PUBLIC_URL,
): string {
  return `${publicUrl.replace(/\/+$/, "")}/api/channels/${conn.channel}/${conn.key}`;
}
