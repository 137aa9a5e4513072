/** @jsxImportSource preact */

import { parseMarkdown } from "../markdown";
import type { PanelConfig } from "../public-config";
import { fill } from "../wording";
import { Markdown } from "./Markdown";
import type { Msg } from "./messages";
import type { Live } from "./useLive";

// What the visitor sees of a live conversation (issue #28): where they stand (waiting, who joined, back with
// the assistant) under the conversation, and a person's messages with their name and initial.

const initial = (name: string) => (name.trim().slice(0, 1) || "?").toUpperCase();

export function LiveBar({ cfg, live, asking }: { cfg: PanelConfig; live: Live; asking: boolean }) {
  const { l } = cfg;
  let text: string | null = null;
  if (asking) text = l.asking;
  else if (live.state === "waiting") text = l.waiting;
  else if (live.state === "person") text = live.agent ? fill(l.joined, { name: live.agent.name }) : null;
  else if (live.ended) text = live.state === "closed" ? l.closed : l.backToBot;
  if (!text) return null;
  return (
    <p class={`live-bar ${live.state}`} role="status">
      {live.state === "person" && live.agent && (
        <span class="avatar" aria-hidden="true">
          {initial(live.agent.name)}
        </span>
      )}
      {text}
    </p>
  );
}

export function AgentMessage({ m }: { m: Msg }) {
  const name = m.agent?.name ?? "";
  return (
    <li class="msg bot agent" data-agent="">
      <span class="who">
        <span class="avatar" aria-hidden="true">
          {initial(name)}
        </span>
        {name}
        <span class="sr">: </span>
      </span>
      <div class="bubble md">
        <Markdown nodes={parseMarkdown(m.text)} />
      </div>
    </li>
  );
}
