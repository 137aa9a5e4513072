import "server-only";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";

// A token estimate with a bundled encoding (no download). The encoder is built once per process and kept on
// globalThis: building it parses a large rank table.
const g = globalThis as unknown as { __michiTiktoken?: Tiktoken };

// BPE merging is quadratic in the length of one pre-token, so a long run without spaces (a base64 blob, a
// row of "é") would take seconds. Such runs are counted in slices; the estimate barely moves.
const LONG_RUN = /[^\s]{80,}/g;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  g.__michiTiktoken ??= new Tiktoken(o200k);
  const enc = g.__michiTiktoken;
  let extra = 0;
  const rest = text.replace(LONG_RUN, (run) => {
    for (let i = 0; i < run.length; i += 40) extra += enc.encode(run.slice(i, i + 40)).length;
    return " ";
  });
  return enc.encode(rest).length + extra;
}
