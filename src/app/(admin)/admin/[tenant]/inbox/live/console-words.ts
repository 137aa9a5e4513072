// The live console's small words and addresses, shared by its page and its parts.

export const STATE_TEXT = { waiting: "Waiting for a person", person: "With a person" } as const;

const LANGUAGES = new Intl.DisplayNames(["en"], { type: "language" });

/** "es-ES" as "Spanish (Spain)": the visitor's browser language in words; an odd tag as it came. */
export function languageName(locale: string): string {
  try {
    return LANGUAGES.of(locale) ?? locale;
  } catch {
    return locale;
  }
}

/** Who has a conversation, with their photo when they set one (the URL names its version). */
export function agentPhoto(
  tenantSlug: string,
  q: { liveAgentId: string | null; agentAvatar: string | null },
): string | null {
  return q.liveAgentId && q.agentAvatar
    ? `/api/admin/${tenantSlug}/avatars/${q.liveAgentId}?v=${q.agentAvatar}`
    : null;
}
