// Server modules start with `import "server-only"`, so a client component that pulls one in fails the build
// instead of shipping database or secret code to a browser. Exempt: the drizzle schema, which drizzle-kit
// loads outside any bundler to generate migrations and which holds table shapes only; and the config form's
// pure half and the Test panel's argument form (arg-form.ts), which the pack page renders in the browser.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SERVER_DIRS = ["src/lib", "src/widget/server"];
const EXEMPT = [/^src\/lib\/db\/schema\//, /^src\/lib\/tools\/(form-data|arg-form)\.ts$/];
const MARKER = /^import "server-only";$/m;

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.tsx?$/.test(entry.name)) yield full;
  }
}

/** Files under `root` (a checkout, or a lint fixture) that should import "server-only" and do not. */
export function missingServerOnly(root) {
  const missing = [];
  for (const dir of SERVER_DIRS) {
    let files;
    try {
      files = [...walk(path.join(root, dir))];
    } catch {
      continue;
    }
    for (const file of files) {
      const rel = path.relative(root, file).split(path.sep).join("/");
      if (EXEMPT.some((re) => re.test(rel))) continue;
      if (!MARKER.test(readFileSync(file, "utf8"))) missing.push(rel);
    }
  }
  return missing;
}
