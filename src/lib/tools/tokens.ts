import "server-only";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

// A token estimate with a bundled encoding (o200k_base, no download). gpt-tokenizer ships the rank table
// prebuilt: loading it takes a fraction of a second and ~40 MB, where js-tiktoken parsed its table for seconds
// on the event loop and kept ~110 MB (measured 2026-12-01, this 2-core machine under load).

// BPE merging is quadratic in the length of one pre-token, so a long run without spaces (a base64 blob, a
// row of "é") would take seconds. Such runs are counted in slices; the estimate barely moves.
const LONG_RUN = /[^\s]{80,}/g;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  let extra = 0;
  const rest = text.replace(LONG_RUN, (run) => {
    for (let i = 0; i < run.length; i += 40) extra += encode(run.slice(i, i + 40)).length;
    return " ";
  });
  return encode(rest).length + extra;
}
