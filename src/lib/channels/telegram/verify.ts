import "server-only";
import { sameSecret } from "../wire";

// setWebhook's `secret_token` comes back on every delivery as `X-Telegram-Bot-Api-Secret-Token`
// (https://core.telegram.org/bots/api#setwebhook). It is the only proof a request comes from Telegram, so an
// absent header fails just like a wrong one.

/** True only when the header carries exactly the secret set with setWebhook, compared in constant time. */
export function verifyTelegramSecret(header: string | null, secret: string): boolean {
  return sameSecret(header, secret);
}
