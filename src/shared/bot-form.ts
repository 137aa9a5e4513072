// Limits and choices of the Bot page, shared by the schema (server) and the form (browser).

export const BOT_LIMITS = {
  displayName: 60,
  greeting: 300,
  instructions: 4000,
  starters: 4,
  starter: 80,
  avatarUrl: 500,
} as const;

export const STARTER_NAMES = Array.from({ length: BOT_LIMITS.starters }, (_, i) => `starter${i + 1}`);
