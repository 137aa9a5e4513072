import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../../scripts/server-flags.mjs";
import { onLowPort } from "./ports";

// Starts the production standalone server (the artifact Docker ships) for e2e tests, on a port below the
// ephemeral range, retried when another listener took it first. Ready means the server itself said it listens
// (scripts/serve.mjs sends one IPC message), so another process on the same port can never pass for it.

export const STANDALONE_SERVER = path.resolve(import.meta.dirname, "../../.next/standalone/michi-server.mjs");

export type Standalone = { child: ChildProcess; port: number; logs(): string };

/**
 * The environment of a production instance of its own that a spec starts (the shutdown, webhook and scaling
 * specs): fresh secrets, the world's fake model, the demo tenant (the specs chat through its widget key).
 * `database`: `{ embedded: dir }` gives it its own PGlite in that folder, `{ url }` that Postgres database.
 */
export function instanceEnv(opts: {
  publicUrl: string;
  modelUrl: string;
  database: { embedded: string } | { url: string };
  extra?: Record<string, string>;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    MICHI_PUBLIC_URL: opts.publicUrl,
    MICHI_SECRET_KEY: randomBytes(32).toString("base64"),
    MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
    OPENAI_BASE_URL: `${opts.modelUrl}/v1`,
    OPENAI_API_KEY: "e2e",
    MICHI_MODELS: "fake-small",
    MICHI_DEMO: "true",
    ...opts.extra,
  };
  delete env.MICHI_E2E_WORLD; // the world's own addresses; this instance is not the world's app
  if ("embedded" in opts.database) {
    env.MICHI_DATA_DIR = opts.database.embedded;
    delete env.DATABASE_URL;
  } else env.DATABASE_URL = opts.database.url;
  return env;
}

export async function startStandalone(opts: {
  /** The server's environment for a given port (PORT and HOSTNAME are set here). */
  env: (port: number) => NodeJS.ProcessEnv;
  /** Also copy the server's output to this process's own (the e2e world shows it in the test output). */
  echo?: boolean;
  timeoutMs?: number;
  /** This port instead of a random one: an instance restarted where its visitors' pages expect it. */
  port?: number;
}): Promise<Standalone> {
  const start = (port: number) =>
    new Promise<Standalone>((resolve, reject) => {
      let logs = "";
      const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, STANDALONE_SERVER], {
        env: { ...opts.env(port), PORT: String(port), HOSTNAME: "127.0.0.1" },
        cwd: path.dirname(STANDALONE_SERVER),
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      const collect = (to: NodeJS.WriteStream) => (d: Buffer) => {
        logs += String(d);
        if (opts.echo) to.write(d);
      };
      child.stdout?.on("data", collect(process.stdout));
      child.stderr?.on("data", collect(process.stderr));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the server did not listen within ${opts.timeoutMs ?? 120_000} ms\n${logs}`));
      }, opts.timeoutMs ?? 120_000);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        // serve.mjs has no handler for a listen error, so a taken port ends it with EADDRINUSE on stderr.
        const err = new Error(`the server exited before listening (code ${code})\n${logs.slice(-4000)}`);
        if (/EADDRINUSE/.test(logs)) Object.assign(err, { code: "EADDRINUSE" });
        reject(err);
      };
      child.once("exit", onExit);
      child.on("message", (m: { type?: string }) => {
        if (m?.type !== "listening") return;
        clearTimeout(timer);
        child.off("exit", onExit);
        // The channel has done its job; it must not keep either process alive.
        child.disconnect();
        resolve({ child, port, logs: () => logs });
      });
    });
  return opts.port === undefined ? onLowPort(start) : start(opts.port);
}
