import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

// Finds the use cases that act for a caller: every exported function of a use-case module (the folders and
// files .dependency-cruiser.cjs calls use cases) whose first parameter is the caller's context, by name
// (`ctx`) or by type (TenantContext, OperatorContext, or a Pick of one). Read from the source, so a new use
// case is found the moment it is written, whether or not any page calls it yet.

export const ROOT = path.resolve(import.meta.dirname, "../../..");

const LOWER_LAYERS = new Set(["auth", "security", "mail", "db", "chat", "tools"]);
const ROOT_USE_CASES = ["boot.ts", "jobs.ts", "retention.ts"];

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.tsx?$/.test(name)) out.push(full);
  }
  return out;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

/** Every use-case module, as a path from the repository root. */
export function listUseCaseModules(): string[] {
  const lib = path.join(ROOT, "src/lib");
  const files: string[] = [];
  for (const name of readdirSync(lib)) {
    const full = path.join(lib, name);
    if (statSync(full).isDirectory()) {
      if (!LOWER_LAYERS.has(name)) walk(full, files);
    } else if (ROOT_USE_CASES.includes(name)) files.push(full);
  }
  walk(path.join(ROOT, "src/widget/server"), files);
  return files.map(rel).sort();
}

const CONTEXT_TYPE = /\b(TenantContext|OperatorContext|Caller)\b/;

function isExported(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function takesContext(fn: ts.SignatureDeclarationBase, source: ts.SourceFile): boolean {
  const first = fn.parameters[0];
  if (!first) return false;
  if (ts.isIdentifier(first.name) && first.name.text === "ctx") return true;
  return first.type !== undefined && CONTEXT_TYPE.test(first.type.getText(source));
}

/** "src/lib/…/file.ts#name" for each exported function of `file` whose first parameter is a caller's context. */
export function contextFunctions(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const node of source.statements) {
    if (!isExported(node)) continue;
    if (ts.isFunctionDeclaration(node) && node.name && takesContext(node, source))
      found.push(`${file}#${node.name.text}`);
    if (ts.isVariableStatement(node))
      for (const d of node.declarationList.declarations) {
        const init = d.initializer;
        if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
          if (takesContext(init, source)) found.push(`${file}#${d.name.text}`);
      }
  }
  return found;
}

export function discoverContextUseCases(): string[] {
  return listUseCaseModules().flatMap(contextFunctions).sort();
}
