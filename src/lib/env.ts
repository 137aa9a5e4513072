import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { commaList, isTruthy } from "@/shared/parse";
import { type ProviderConfig, parseProviders, presetSchema } from "./env-providers";
import { processSlot } from "./process-slot";

// Every variable the platform reads, in one place. `.env.example` documents each of them.

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : isTruthy(v)));

const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const list = z.string().optional().transform(commaList);

const key32 = z
  .string()
  .refine((v) => Buffer.from(v, "base64").length === 32 && /^[A-Za-z0-9+/]+=*$/.test(v), {
    message: "must be 32 bytes encoded in base64 (openssl rand -base64 32)",
  });

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

const origin = z
  .string()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && u.pathname === "/" && !u.search;
    } catch {
      return false;
    }
  }, "must be an origin such as https://chat.example.com (no path)")
  .transform((v) => new URL(v).origin);

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: int(3000, 1, 65535),
  MICHI_PUBLIC_URL: origin.optional(),
  MICHI_DATA_DIR: z.string().min(1).default(".data"),

  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || /^postgres(ql)?:\/\/[^\s]+$/.test(v), {
      message: "must be a postgres:// or postgresql:// URL",
    }),
  DATABASE_POOL_MAX: int(10, 1, 200),

  MICHI_SECRET_KEY: key32.optional(),
  MICHI_SECRET_KEY_PREVIOUS: key32.optional(),
  MICHI_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  MICHI_ADMIN_EMAIL: z.email("must be an e-mail address").default("admin@example.com"),
  MICHI_ADMIN_PASSWORD: z.string().min(10, "must be at least 10 characters").optional(),
  MICHI_ALLOW_SIGNUP: z.enum(["true", "false", "1", "0", "yes", "no", ""]).optional(),
  MICHI_DEMO: z.enum(["true", "false", "1", "0", "yes", "no", ""]).optional(),
  GITHUB_ID: optionalString,

  // Outgoing mail (src/lib/mail). A URL as nodemailer reads it: smtp://user:pass@host:587 (STARTTLS when the
  // server offers it) or smtps://user:pass@host:465 (TLS from the first byte).
  MICHI_SMTP_URL: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || /^smtps?:\/\/[^\s/]+/.test(v), {
      message: "must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587",
    }),
  MICHI_MAIL_FROM: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || /^[^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>$|^[^<>@\s]+@[^<>@\s]+$/.test(v), {
      message: 'must be an address, e.g. no-reply@example.com or "michi-chat <no-reply@example.com>"',
    }),
  MICHI_MAIL_OUTBOX: z.enum(["true", "false", "1", "0", "yes", "no", ""]).optional(),
  GITHUB_SECRET: optionalString,

  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: z.url("must be a URL").optional(),
  OPENAI_PRESET: presetSchema,
  MICHI_MODELS: list,
  MICHI_PROVIDERS: list,
  MICHI_MAX_TOOL_ROUNDS: int(4, 1, 10),
  MICHI_MAX_OUTPUT_TOKENS: int(800, 16, 32000),
  MICHI_MODEL_TIMEOUT_MS: int(60_000, 1000, 600_000),
  MICHI_MODEL_IDLE_TIMEOUT_MS: int(15_000, 500, 300_000),
  MICHI_MODEL_FIRST_BYTE_TIMEOUT_MS: int(30_000, 500, 600_000),
  MICHI_HISTORY_MAX_CHARS: int(12_000, 1000, 200_000),

  // The embeddings model for knowledge search (src/lib/knowledge/embeddings.ts); unset = full-text search only.
  MICHI_EMBEDDINGS: optionalString,
  MICHI_EMBEDDINGS_PROVIDER: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim().toLowerCase() : "default")),
  MICHI_EMBEDDINGS_DIALECT: z.enum(["openai", "ollama"]).default("openai"),
  MICHI_EMBEDDINGS_DIMENSIONS: int(0, 0, 8192),
  MICHI_EMBEDDINGS_BATCH: int(32, 1, 2048),
  MICHI_EMBEDDINGS_TIMEOUT_MS: int(30_000, 1000, 600_000),
  MICHI_EMBEDDINGS_QUERY_PREFIX: z.string().optional(),
  MICHI_EMBEDDINGS_DOCUMENT_PREFIX: z.string().optional(),

  MICHI_TOOL_TIMEOUT_MS: int(8000, 100, 60_000),
  MICHI_TOOL_RESULT_MAX_CHARS: int(4000, 200, 100_000),
  MICHI_FETCH_ALLOW_HOSTS: list,
  MICHI_FETCH_EXTRA_CA: optionalString,

  // Where the channel clients call the Graph API (with its version, e.g. https://graph.facebook.com/v23.0) and
  // the Bot API. Unset: Meta's and Telegram's own. Any other host must also be in MICHI_FETCH_ALLOW_HOSTS (the
  // channel wire refuses it otherwise), so this can only point at a server the operator trusts: the e2e
  // world's fake APIs on loopback, or a test double a staging deployment runs.
  MICHI_CHANNELS_GRAPH_URL: z.url("must be a URL").optional(),
  MICHI_CHANNELS_TELEGRAM_URL: z.url("must be a URL").optional(),

  MICHI_DEFAULT_MONTHLY_TOKENS: int(2_000_000, 0, 2_000_000_000),
  // Model tokens one run of a business's test questions may spend; the questions left at the cap are not run.
  // Counted on the run, never in the month's visitor usage.
  MICHI_TEST_RUN_MAX_TOKENS: int(200_000, 1_000, 100_000_000),
  MICHI_RATE_VISITOR_PER_MIN: int(20, 1, 100_000),
  MICHI_RATE_IP_PER_MIN: int(60, 1, 100_000),
  MICHI_RATE_TENANT_PER_MIN: int(600, 1, 1_000_000),
  MICHI_MAX_STREAMS_PER_TENANT: int(50, 1, 100_000),
  REDIS_URL: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || /^rediss?:\/\//.test(v), { message: "must be a redis:// URL" }),
  MICHI_TRUST_PROXY: int(0, 0, 10),

  MICHI_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  MICHI_LOG_CONTENT: bool(false),
  MICHI_PURGE_INTERVAL_MIN: int(60, 1, 10_080),
  MICHI_SHUTDOWN_GRACE_MS: int(10_000, 0, 120_000),
  MICHI_WEBHOOK_QUIET_SECONDS: int(1800, 1, 604_800),
  MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS: int(60, 0, 3600),
});

export type Env = Omit<
  z.infer<typeof envSchema>,
  | "MICHI_SECRET_KEY"
  | "MICHI_AUTH_SECRET"
  | "MICHI_PUBLIC_URL"
  | "MICHI_ALLOW_SIGNUP"
  | "MICHI_DEMO"
  | "MICHI_MAIL_FROM"
  | "MICHI_MAIL_OUTBOX"
> & {
  MICHI_SECRET_KEY: string;
  MICHI_AUTH_SECRET: string;
  MICHI_PUBLIC_URL: string;
  MICHI_ALLOW_SIGNUP: boolean;
  /** The demo tenant and its public /demo page: on in development, off in production unless asked for. */
  MICHI_DEMO: boolean;
  /** The sender of every mail; derived from MICHI_PUBLIC_URL's host when unset. */
  MICHI_MAIL_FROM: string;
  /**
   * Without SMTP, whether mails are kept for the operator (the Outbox page, and in development the log) instead
   * of being dropped: on in development, off in production unless asked for (a reset link is a secret).
   */
  MICHI_MAIL_OUTBOX: boolean;
  isProduction: boolean;
  /** The named providers of MICHI_PROVIDERS (the default one is read from OPENAI_* by providerFor). */
  providers: ProviderConfig[];
};

// A brand rather than `instanceof`, like AppError (src/lib/errors.ts): boot may hold another copy of this module.
const ENV_ERROR = Symbol.for("michi.error.env");

export class EnvError extends Error {
  readonly [ENV_ERROR] = true;
  constructor(readonly problems: string[]) {
    super(
      `michi-chat cannot start: the environment is invalid.\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "EnvError";
  }
}

export function isEnvError(e: unknown): e is EnvError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[ENV_ERROR] === true;
}

type Source = Record<string, string | undefined>;

/**
 * Pure parser: returns the typed environment or throws one EnvError listing every fault.
 * `devSecrets` supplies generated secrets outside production, where they are required instead.
 */
export function parseEnv(source: Source, devSecrets?: () => { secretKey: string; authSecret: string }): Env {
  const parsed = envSchema.safeParse(source);
  const problems: string[] = [];
  // Named providers are checked even when other variables are wrong, so one error lists every fault.
  const named = parseProviders(source, list.parse(source.MICHI_PROVIDERS));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
    throw new EnvError([...problems, ...named.problems]);
  }
  const e = parsed.data;
  const isProduction = e.NODE_ENV === "production";
  let secretKey = e.MICHI_SECRET_KEY;
  let authSecret = e.MICHI_AUTH_SECRET;
  if (isProduction) {
    if (!secretKey) problems.push("MICHI_SECRET_KEY: required in production (openssl rand -base64 32)");
    if (!authSecret) problems.push("MICHI_AUTH_SECRET: required in production (openssl rand -base64 32)");
    if (!e.MICHI_PUBLIC_URL)
      problems.push("MICHI_PUBLIC_URL: required in production (e.g. https://chat.example.com)");
  } else if ((!secretKey || !authSecret) && devSecrets) {
    const generated = devSecrets();
    secretKey ??= generated.secretKey;
    authSecret ??= generated.authSecret;
  }
  problems.push(...named.problems);
  if (e.MICHI_EMBEDDINGS) {
    const p = e.MICHI_EMBEDDINGS_PROVIDER;
    if (p === "default" && !e.OPENAI_BASE_URL && !e.OPENAI_API_KEY)
      problems.push("MICHI_EMBEDDINGS: the default provider needs OPENAI_BASE_URL or OPENAI_API_KEY");
    else if (p !== "default" && !named.providers.some((n) => n.name === p))
      problems.push(`MICHI_EMBEDDINGS_PROVIDER: "${p}" is neither "default" nor a name in MICHI_PROVIDERS`);
  }
  if (problems.length > 0) throw new EnvError(problems);
  if (!secretKey || !authSecret) throw new EnvError(["MICHI_SECRET_KEY/MICHI_AUTH_SECRET: missing"]);
  const onOutsideProduction = (v: string | undefined) =>
    v === undefined || v === "" ? !isProduction : isTruthy(v);
  const allowSignup = onOutsideProduction(e.MICHI_ALLOW_SIGNUP);
  const publicUrl = e.MICHI_PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  return {
    ...e,
    MICHI_SECRET_KEY: secretKey,
    MICHI_AUTH_SECRET: authSecret,
    MICHI_PUBLIC_URL: publicUrl,
    MICHI_ALLOW_SIGNUP: allowSignup,
    // In production the demo would let anyone who reaches the install chat on the operator's model key.
    MICHI_DEMO: onOutsideProduction(e.MICHI_DEMO),
    MICHI_MAIL_FROM: e.MICHI_MAIL_FROM ?? `michi-chat <no-reply@${new URL(publicUrl).hostname}>`,
    MICHI_MAIL_OUTBOX: onOutsideProduction(e.MICHI_MAIL_OUTBOX),
    isProduction,
    providers: named.providers,
  };
}

/** Dev only: secrets are generated once into the data folder and reused, so restarts keep sessions and secrets. */
export function devSecretsIn(dataDir: string) {
  return () => {
    const file = path.join(dataDir, "secrets.json");
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, "utf8")) as { secretKey: string; authSecret: string };
      if (saved.secretKey && saved.authSecret) return saved;
    }
    mkdirSync(dataDir, { recursive: true });
    const fresh = {
      secretKey: randomBytes(32).toString("base64"),
      authSecret: randomBytes(32).toString("base64"),
    };
    writeFileSync(file, JSON.stringify(fresh, null, 2), { mode: 0o600 });
    return fresh;
  };
}

const cache = processSlot<Env>("Env");

/** The process environment, parsed once. Throws EnvError on the first access if anything is wrong. */
export function env(): Env {
  return cache.get() ?? loadEnv();
}

function loadEnv(): Env {
  const parsed = parseEnv(process.env, devSecretsIn(process.env.MICHI_DATA_DIR || ".data"));
  cache.set(parsed);
  return parsed;
}

/** Makes the next env() read process.env again: for a setting the app itself just changed (development). */
export function reloadEnv(): void {
  cache.set(undefined);
}
