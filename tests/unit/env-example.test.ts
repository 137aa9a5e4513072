import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envSchema } from "@/lib/env";

describe(".env.example", () => {
  it("documents every variable the platform reads, each with a comment above it", () => {
    const text = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    const lines = text.split("\n");
    for (const name of Object.keys(envSchema.shape).filter((k) => k !== "NODE_ENV")) {
      const at = lines.findIndex((l) => new RegExp(`^#?\\s?${name}=`).test(l));
      expect(at, `${name} is missing from .env.example`).toBeGreaterThan(0);
      let above = at - 1;
      while (above > 0 && /^#?\s?[A-Z_]+=/.test(lines[above] ?? "")) above--;
      expect(lines[above]?.startsWith("#"), `${name} has no comment`).toBe(true);
    }
  });
});
