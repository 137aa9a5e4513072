import "server-only";
import pino from "pino";

// Paths that may carry credentials or visitor content. Content is dropped unless MICHI_LOG_CONTENT=true,
// which callers check before adding a `content` field at all; the redaction here is the backstop.
const REDACT = [
  "password",
  "*.password",
  "secret",
  "*.secret",
  "secrets",
  "*.secrets",
  "token",
  "*.token",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "headers.cookie",
  "*.headers.authorization",
  "*.headers.cookie",
  "apiKey",
  "*.apiKey",
  "config.*",
];

const g = globalThis as unknown as { __michiLog?: pino.Logger };

export function createLogger(destination?: pino.DestinationStream, level?: string): pino.Logger {
  return pino(
    {
      level: level ?? process.env.MICHI_LOG_LEVEL ?? "info",
      base: { app: "michi-chat" },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export function log(): pino.Logger {
  // Asynchronous writes to stdout: a log line never blocks the event loop on a slow pipe or terminal, and
  // pino flushes what is pending when the process exits (its exit handler on SonicBoom). No minimum length,
  // so a quiet server's lines still appear at once.
  g.__michiLog ??= createLogger(pino.destination({ dest: 1, sync: false }));
  return g.__michiLog;
}

export type Logger = pino.Logger;
