import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { bundleWidget } from "../../scripts/build-widget.mjs";

// Size budgets from issue 6, measured on exactly what scripts/build-widget.mjs writes to public/.
const LOADER_BUDGET = 2 * 1024;
const PANEL_BUDGET = 25 * 1024;

type Bundles = {
  loader: string | null;
  files: Record<string, string>;
  manifest: { js?: string; css?: string };
};
let built: Bundles;
const gz = (s: string) => gzipSync(Buffer.from(s), { level: 9 }).length;

beforeAll(async () => {
  built = await bundleWidget();
}, 60_000);

describe("widget size budgets", () => {
  it(`the loader is at most ${LOADER_BUDGET} bytes gzipped`, () => {
    expect(built.loader).toBeTruthy();
    expect(gz(built.loader!)).toBeLessThanOrEqual(LOADER_BUDGET);
  });

  it(`all of the panel's JavaScript is at most ${PANEL_BUDGET} bytes gzipped`, () => {
    const js = Object.entries(built.files).filter(([name]) => name.endsWith(".js"));
    expect(js.length).toBeGreaterThan(0);
    const total = js.reduce((n, [, text]) => n + gz(text), 0);
    expect(total).toBeLessThanOrEqual(PANEL_BUDGET);
  });

  it("names panel files by content hash, as the long-cache header assumes", () => {
    for (const name of Object.keys(built.files)) expect(name).toMatch(/^panel\.[0-9a-f]{12}\.(js|css)$/);
    expect(built.manifest.js).toMatch(/^\/w\/panel\.[0-9a-f]{12}\.js$/);
    expect(built.manifest.css).toMatch(/^\/w\/panel\.[0-9a-f]{12}\.css$/);
  });

  it("the loader has no dependencies: one self-contained script with no imports", () => {
    expect(built.loader).not.toMatch(/\bimport\s*\(|\brequire\(|^import /m);
  });
});
