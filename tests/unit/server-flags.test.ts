import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "../../scripts/server-flags.mjs";

// The operator image cannot import scripts/server-flags.mjs: its CMD spells the flags out, and must say the
// same as `npm start`, the e2e tests and the benchmark.

describe("the production server's Node flags", () => {
  it("are the ones the Dockerfile's CMD starts the server with", () => {
    const dockerfile = readFileSync(path.resolve(import.meta.dirname, "../../Dockerfile"), "utf8");
    const cmd = dockerfile.match(/^CMD (\[.*\])\s*$/m)?.[1];
    expect(cmd).toBeDefined();
    expect(JSON.parse(cmd!)).toEqual(["node", ...SERVER_NODE_FLAGS, "michi-server.mjs"]);
  });

  it("are flags this Node accepts", () => {
    for (const flag of SERVER_NODE_FLAGS) {
      expect(process.allowedNodeEnvironmentFlags.has(flag.split("=")[0]!)).toBe(true);
    }
  });
});
