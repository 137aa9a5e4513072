import "server-only";
import pino from "pino";
import { processSlot } from "./process-slot";
import { redactSecretPaths } from "./secret-paths.mjs";

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

const logger = processSlot<pino.Logger>("Log");

export function createLogger(destination?: pino.DestinationStream, level?: string): pino.Logger {
  return pino(
    {
      level: level ?? process.env.MICHI_LOG_LEVEL ?? "info",
      base: { app: "michi-chat" },
      redact: { paths: REDACT, censor: "[redacted]" },
      // Field names cannot catch a link token inside a URL or a message (an error's text, a mail in
      // development): every written line passes the secret-route redaction as well.
      hooks: { streamWrite: redactSecretPaths },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * Where the server's lines go (scripts/serve.mjs uses the same settings for its access lines): stdout, written
 * asynchronously so a line never blocks the event loop on a slow pipe or terminal. Lines are gathered up to
 * 4 KB, or for at most half a second, and written together: a chat turn logs two lines, and writing each on
 * its own cost a thread-pool round trip apiece (measured in bench/README.md, issue 17). pino writes what is
 * still gathered when the process exits; start-up and shutdown lines are flushed at once.
 */
const LOG_DESTINATION = { dest: 1, sync: false, minLength: 4096, periodicFlush: 500 } as const;

export function log(): pino.Logger {
  return logger.use(processLogger);
}

function processLogger(): pino.Logger {
  return createLogger(pino.destination(LOG_DESTINATION));
}

export type Logger = pino.Logger;
