import "server-only";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { assertOperator, type OperatorContext } from "../auth/access";
import { detectLocalModelServers, type LocalModelServer } from "../chat/local-models";
import { modelStatus } from "../chat/model";
import { env, reloadEnv } from "../env";
import { AppError } from "../errors";
import { log } from "../log";

// The operator's one click from "no model" to a first answer in development: the local model server found on
// this machine is written to .env.local (so the next start keeps it) and takes effect at once in this
// process. Only in development: a production server's configuration is its environment, never a file the
// app writes.

const KEYS = ["OPENAI_BASE_URL", "OPENAI_PRESET", "MICHI_MODELS"] as const;

function withEntries(text: string, entries: Record<(typeof KEYS)[number], string>): string {
  const kept = text
    .split(/\r?\n/)
    .filter((line) => !KEYS.some((k) => new RegExp(`^\\s*(export\\s+)?${k}\\s*=`).test(line)));
  while (kept.length > 0 && kept.at(-1)?.trim() === "") kept.pop();
  const added = [
    "# The local model server found by the setup checklist (change or remove freely).",
    ...KEYS.map((k) => `${k}=${entries[k]}`),
  ];
  return `${[...kept, ...(kept.length > 0 ? [""] : []), ...added].join("\n")}\n`;
}

type Deps = {
  detect?: () => Promise<LocalModelServer[]>;
  /** Where the entries are written; .env.local in the working directory, as `npm run dev` reads it. */
  envFile?: string;
};

export async function adoptLocalModelServer(
  ctx: OperatorContext,
  input: { preset: string },
  deps: Deps = {},
): Promise<LocalModelServer> {
  assertOperator(ctx);
  if (env().NODE_ENV === "production")
    throw new AppError("forbidden", "Local model servers are offered in development only.");
  if (modelStatus().configured) throw new AppError("conflict", "A model is already configured.");
  const found = (await (deps.detect ?? detectLocalModelServers)()).find((s) => s.preset === input.preset);
  if (!found)
    throw new AppError(
      "not_found",
      "That model server no longer answers on this machine. Start it and reload.",
    );
  const entries = {
    OPENAI_BASE_URL: found.baseURL,
    OPENAI_PRESET: found.preset,
    MICHI_MODELS: found.models.join(","),
  };
  // turbopackIgnore: a path built from the working directory made the build trace the whole repository
  // (.env.local included) into the standalone output.
  const file = deps.envFile ?? path.join(/* turbopackIgnore: true */ process.cwd(), ".env.local");
  writeFileSync(file, withEntries(existsSync(file) ? readFileSync(file, "utf8") : "", entries), {
    mode: 0o600,
  });
  Object.assign(process.env, entries);
  reloadEnv();
  log().info(
    { by: ctx.user.id, server: found.baseURL, models: found.models.length },
    "local model server adopted",
  );
  return found;
}
