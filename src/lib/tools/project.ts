// Helpers packs use to project an upstream payload to the handful of fields the model needs. Every result is
// re-sent to the model on each later round of the loop, so what is dropped here is never paid for.

import "server-only";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Cuts text to at most `max` characters at a word boundary when one is near, adding an ellipsis. */
export function clipText(v: unknown, max: number): string | undefined {
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const s = String(v).replace(/\s+/g, " ").trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** A finite number from a number or a numeric string ("4.50", "4,50"), else undefined. */
export function asNumber(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v.trim().replace(",", "."));
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** The first key of `obj` (in order) whose value is not null/undefined. */
export function firstOf(obj: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

/** The list inside a payload: the payload itself when it is an array, else the first array under `keys`. */
export function findList(data: unknown, keys: readonly string[]): unknown[] | null {
  if (Array.isArray(data)) return data;
  if (!isRecord(data)) return null;
  for (const k of keys) if (Array.isArray(data[k])) return data[k] as unknown[];
  return null;
}

/** Lower-cases and strips accents, for forgiving matching ("Café" matches "cafe"). */
export function fold(s: string): string {
  return s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

// ---- field allowlists (fetch_json) ----

type PathTree = { [segment: string]: PathTree | true };

/** Whether an allowlist path is well formed: `name`, `address.city`, `items[].name`, `[].title`. */
export const FIELD_PATH = /^(?:\[\]|[A-Za-z_$][\w$-]*(?:\[\])?)(?:\.[A-Za-z_$][\w$-]*(?:\[\])?)*$/;

export function validFieldPath(p: string): boolean {
  return FIELD_PATH.test(p);
}

function buildTree(paths: readonly string[]): PathTree {
  const root: PathTree = {};
  for (const p of paths) {
    if (!validFieldPath(p)) continue;
    // "items[].name" walks "items[]" then "name"; a leading "[]" means the payload itself is a list.
    const segments = p.split(".");
    let node = root;
    segments.forEach((seg, i) => {
      const last = i === segments.length - 1;
      if (last) {
        if (node[seg] === undefined) node[seg] = true;
        return;
      }
      const next = node[seg];
      if (next === undefined || next === true) node[seg] = {};
      node = node[seg] as PathTree;
    });
  }
  return root;
}

const MAX_LEAF_CHARS = 500;

function leaf(v: unknown, maxItems: number): Json | undefined {
  if (v === null || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string") return clipText(v, MAX_LEAF_CHARS) ?? "";
  // A path must end at a value or a list of values; whole objects would smuggle every other field back in.
  if (Array.isArray(v)) {
    const vals = v
      .slice(0, maxItems)
      .map((x) => leaf(x, maxItems))
      .filter((x): x is Json => x !== undefined && !Array.isArray(x));
    return vals;
  }
  return undefined;
}

function walk(value: unknown, tree: PathTree | true, maxItems: number): Json | undefined {
  if (tree === true) return leaf(value, maxItems);
  if (tree["[]"] !== undefined) {
    if (!Array.isArray(value)) return undefined;
    const sub = tree["[]"];
    return value
      .slice(0, maxItems)
      .map((el) => walk(el, sub, maxItems))
      .filter((x): x is Json => x !== undefined);
  }
  if (!isRecord(value)) return undefined;
  const out: { [k: string]: Json } = {};
  for (const [seg, sub] of Object.entries(tree)) {
    if (seg.endsWith("[]")) {
      const key = seg.slice(0, -2);
      const list = value[key];
      if (!Array.isArray(list)) continue;
      out[key] =
        sub === true
          ? (leaf(list, maxItems) as Json)
          : list
              .slice(0, maxItems)
              .map((el) => walk(el, sub, maxItems))
              .filter((x): x is Json => x !== undefined);
      continue;
    }
    if (!Object.hasOwn(value, seg)) continue;
    const v = walk(value[seg], sub, maxItems);
    if (v !== undefined) out[seg] = v;
  }
  return out;
}

/**
 * Keeps only the allowlisted paths of `data`; everything else is dropped. Lists are cut to `maxItems`.
 * Returns undefined when none of the paths is present.
 */
export function projectFields(
  data: unknown,
  paths: readonly string[],
  maxItems: number,
): { [k: string]: Json } | Json[] | undefined {
  const out = walk(data, buildTree(paths), maxItems);
  if (Array.isArray(out)) return out.length > 0 ? out : undefined;
  if (isRecord(out)) return Object.keys(out).length > 0 ? (out as { [k: string]: Json }) : undefined;
  return undefined;
}
