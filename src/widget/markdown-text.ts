// The text of a parsed answer without its markup, for the screen reader's announcement of a new answer.
import type { MdNode } from "./markdown-inline";

/** The visible text of a tree, for the live region and tests. */
export function plainText(nodes: readonly MdNode[]): string {
  const text = (n: MdNode): string => {
    if (typeof n === "string") return n;
    if (n.t === "br") return "\n";
    const inner = n.c.map(text).join("");
    if (n.t === "th" || n.t === "td") return `${inner}\t`;
    return n.t === "p" || n.t === "li" || n.t === "pre" || n.t === "tr" ? `${inner}\n` : inner;
  };
  return nodes.map(text).join("").trim();
}
