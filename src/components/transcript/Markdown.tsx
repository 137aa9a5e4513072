import { createElement, type ReactNode } from "react";
import { parseMarkdown } from "@/widget/markdown";
import type { MdNode } from "@/widget/markdown-inline";

// The widget's safe Markdown, drawn with React for the admin: the same parser (src/widget/markdown.ts) turns
// an answer into a tree of tags from a closed list, and strings only ever become text nodes, so a transcript
// shows an answer exactly as the visitor saw it and model output still cannot become markup.

function node(n: MdNode, i: number): ReactNode {
  if (typeof n === "string") return n;
  const kids = n.c.map(node);
  if (n.t === "a")
    return (
      <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
        {kids}
      </a>
    );
  return createElement(n.t, { key: i }, ...kids);
}

export function Markdown({ source }: { source: string }) {
  return <div className="md">{parseMarkdown(source).map(node)}</div>;
}
