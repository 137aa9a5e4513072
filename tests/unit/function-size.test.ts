import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The project's rule: a function is at most 120 lines (docs/architecture.md). Read with the TypeScript
// compiler, so a function is a function whatever its form (declaration, arrow, method, component).
// The widget's loader is sized for its bundle, one closure on purpose, and is left out.

const root = path.resolve(import.meta.dirname, "../..");
const MAX_LINES = 120;
const EXEMPT = new Set(["src/widget/loader.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

function longFunctions(file: string): string[] {
  const text = readFileSync(file, "utf8");
  // A file of at most 120 lines holds no longer function: only the others are parsed, which is most of the cost.
  if (text.split("\n").length <= MAX_LINES) return [];
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) {
        const name =
          node.name?.getText(source) ??
          (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : "(anonymous)");
        found.push(`${path.relative(root, file)}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function size", () => {
  it(`no function in src/ is longer than ${MAX_LINES} lines`, () => {
    const files = sourceFiles(path.join(root, "src")).filter((f) => !EXEMPT.has(path.relative(root, f)));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});
