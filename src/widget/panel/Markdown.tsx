/** @jsxImportSource preact */
import { type ComponentChild, h } from "preact";
import type { MdNode } from "../markdown-inline";

// Preact puts strings into text nodes and sets href as a property; the tag comes from the parser's closed
// list. Nothing from the model reaches innerHTML.
function node(n: MdNode, i: number): ComponentChild {
  if (typeof n === "string") return n;
  const kids = n.c.map(node);
  if (n.t === "a")
    return (
      <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
        {kids}
      </a>
    );
  return h(n.t, { key: i }, kids);
}

export function Markdown({ nodes }: { nodes: MdNode[] }) {
  return <>{nodes.map(node)}</>;
}
