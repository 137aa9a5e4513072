import "server-only";
import { Ajv } from "ajv";
import { configSchema, pathProblem } from "./config";
import { confirmFaults } from "./confirm";
import { type ConfigField, isLang, type ToolPack } from "./contract";

// The pack list rules, checked at start-up, in a unit test and by `npm run check:packs`. A broken pack must
// stop the process with a message naming it, not surface later as a confusing model error.

const ID = /^[a-z][a-z0-9_]{1,63}$/;
const KEY = /^[a-zA-Z][a-zA-Z0-9]*$/;
const FIELD_TYPES = new Set([
  "text",
  "textarea",
  "url",
  "secret",
  "number",
  "boolean",
  "select",
  "list",
  "path",
]);

// Strict mode catches typos such as "require" for "required" in a parameters schema.
function strictAjv() {
  return new Ajv({ strict: true, strictTypes: false, strictTuples: false, allErrors: true });
}

function fieldFaults(f: ConfigField): string[] {
  const faults: string[] = [];
  const where = `config field "${f.key}"`;
  if (!f.label?.trim()) faults.push(`${where} has no label`);
  if (!FIELD_TYPES.has(f.type)) faults.push(`${where} has unknown type "${(f as { type: string }).type}"`);
  if (f.type === "select") {
    const values = (f.options ?? []).map((o) => o.value);
    if (values.length === 0) faults.push(`${where} is a select without options`);
    if (new Set(values).size !== values.length) faults.push(`${where} has duplicate option values`);
    if (f.default !== undefined && !values.includes(f.default))
      faults.push(`${where} has a default that is not one of its options`);
  }
  if (f.type === "number") {
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) faults.push(`${where} has min > max`);
    if (f.default !== undefined && ((f.min ?? -Infinity) > f.default || (f.max ?? Infinity) < f.default))
      faults.push(`${where} has a default outside min/max`);
  }
  if (f.type === "path" && f.default !== undefined) {
    const problem = pathProblem(f.default);
    if (problem) faults.push(`${where} has an unsafe default path: ${problem}`);
  }
  if (f.type === "url" && f.default !== undefined && !/^https:\/\//.test(f.default))
    faults.push(`${where} has a default that is not https`);
  return faults;
}

/** Every fault of one pack, in words an operator can act on. Empty when the pack is well formed. */
export function packFaults(pack: ToolPack): string[] {
  const faults: string[] = [];
  if (typeof pack.id !== "string" || !ID.test(pack.id))
    faults.push("id must be lower-case letters, digits and _ (2 to 64 characters, starting with a letter)");
  if (!pack.label?.trim()) faults.push("label (the chip text) is empty");
  else if (pack.label.length > 60) faults.push("label is longer than 60 characters");
  const fn = pack.definition?.function;
  if (pack.definition?.type !== "function" || !fn)
    faults.push('definition must be { type: "function", function }');
  else {
    if (fn.name !== pack.id) faults.push(`definition.function.name "${fn.name}" differs from the id`);
    if (!fn.description?.trim()) faults.push("definition.function.description is empty");
    if (fn.parameters?.type !== "object")
      faults.push('definition.function.parameters must have type "object"');
    else {
      try {
        strictAjv().compile(fn.parameters);
      } catch (e) {
        faults.push(`parameters schema does not compile: ${(e as Error).message}`);
      }
    }
  }
  if (typeof pack.run !== "function") faults.push("run is not a function");
  if (pack.describe !== undefined && typeof pack.describe !== "function")
    faults.push("describe is not a function");
  if (pack.lacks !== undefined && typeof pack.lacks !== "function") faults.push("lacks is not a function");
  if (pack.needsVerifiedVisitor !== undefined && typeof pack.needsVerifiedVisitor !== "boolean")
    faults.push("needsVerifiedVisitor must be true or false");
  for (const lang of Object.keys(pack.labels ?? {})) {
    if (!isLang(lang)) faults.push(`labels has unknown language "${lang}"`);
  }
  const fields = Array.isArray(pack.configFields) ? pack.configFields : [];
  if (!Array.isArray(pack.configFields)) faults.push("configFields must be a list");
  const seen = new Set<string>();
  for (const f of fields) {
    if (typeof f.key !== "string" || !KEY.test(f.key)) {
      faults.push(`config key "${f.key}" must be letters and digits, starting with a letter`);
      continue;
    }
    if (seen.has(f.key)) faults.push(`config key "${f.key}" is used twice`);
    seen.add(f.key);
    faults.push(...fieldFaults(f));
  }
  if (pack.parametersFor !== undefined && typeof pack.parametersFor !== "function")
    faults.push("parametersFor is not a function");
  if (pack.confirm !== undefined) faults.push(...confirmShapeFaults(pack));
  if (faults.length === 0 && pack.example) {
    const parsed = configSchema(pack).safeParse(pack.example.config);
    if (!parsed.success)
      faults.push(
        `example config does not validate: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    // A schema built from the tenant's config is checked as the example's config builds it.
    const parameters =
      parsed.success && pack.parametersFor
        ? pack.parametersFor(parsed.data)
        : pack.definition.function.parameters;
    if (parsed.success && pack.confirm && (typeof pack.confirm.fields === "function" || pack.parametersFor))
      faults.push(...confirmFaults(pack, parsed.data, parameters));
    const validate = strictAjv().compile(parameters);
    if (!validate(structuredClone(pack.example.args)))
      faults.push(
        `example args do not match the parameters schema: ${strictAjv().errorsText(validate.errors)}`,
      );
  }
  return faults;
}

/** The confirm declaration's own shape; its fields are checked against the schema by confirmFaults. */
function confirmShapeFaults(pack: ToolPack): string[] {
  const c = pack.confirm;
  if (typeof c !== "object" || c === null) return ["confirm must be { title, fields }"];
  const faults: string[] = [];
  if (typeof c.title === "object" && c.title !== null) {
    for (const lang of Object.keys(c.title))
      if (!isLang(lang)) faults.push(`confirm.title has unknown language "${lang}"`);
  } else if (typeof c.title !== "string" && typeof c.title !== "function")
    faults.push("confirm.title must be words, words per language, or a function of the config");
  if (!Array.isArray(c.fields) && typeof c.fields !== "function")
    faults.push("confirm.fields must be a list or a function of the config");
  // Fixed fields can be checked against the pack's own schema without an example.
  if (faults.length === 0 && Array.isArray(c.fields) && !pack.parametersFor)
    faults.push(...confirmFaults(pack, undefined, pack.definition.function.parameters));
  if (faults.length === 0 && !pack.example)
    faults.push("a pack with confirm needs an example, so its card can be checked");
  return faults;
}

/** Every fault of the pack list, each prefixed with the pack it belongs to. */
export function packListFaults(packs: readonly ToolPack[]): string[] {
  const out: string[] = [];
  const ids = new Map<string, number>();
  packs.forEach((pack, i) => {
    const name = typeof pack?.id === "string" && pack.id ? `"${pack.id}"` : `#${i + 1}`;
    if (!pack || typeof pack !== "object") {
      out.push(`Tool pack ${name}: is not an object`);
      return;
    }
    if (ids.has(pack.id)) out.push(`Tool pack ${name}: duplicate id (also pack #${ids.get(pack.id)! + 1})`);
    else ids.set(pack.id, i);
    for (const f of packFaults(pack)) out.push(`Tool pack ${name}: ${f}`);
  });
  return out;
}

/** Throws one Error listing every fault, each naming its pack. */
export function checkPackList(packs: readonly ToolPack[]): void {
  const faults = packListFaults(packs);
  if (faults.length > 0)
    throw new Error(`The tool-pack list is broken:\n${faults.map((f) => `  - ${f}`).join("\n")}`);
}
