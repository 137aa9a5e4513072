import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";

// A token estimate with a bundled encoding (no download). The encoder is built once per process and kept on
// globalThis: building it parses a large rank table.
const g = globalThis as unknown as { __michiTiktoken?: Tiktoken };

export function estimateTokens(text: string): number {
  if (!text) return 0;
  g.__michiTiktoken ??= new Tiktoken(o200k);
  return g.__michiTiktoken.encode(text).length;
}
