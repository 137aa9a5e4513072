/** @jsxImportSource preact */

import { useEffect, useState } from "preact/hooks";
import { fill } from "@/shared/fill";
import type { VisitorAgent } from "@/shared/live-events";
import { parseMarkdown } from "../markdown";
import type { PanelConfig } from "../public-config";
import { auth } from "./identity";
import { Markdown } from "./Markdown";
import type { Msg } from "./messages";
import { type Session, withToken } from "./session";
import { httpError } from "./sse";
import type { Live } from "./useLive";

// What the visitor sees of a live conversation (issue #28): where they stand (waiting, and for whom once
// someone is assigned; who joined; back with the assistant) under the conversation, and a person's messages
// with their name and photo (their initial when they have none, or while it loads).

const initial = (name: string) => (name.trim().slice(0, 1) || "?").toUpperCase();

// Each photo address is fetched once per panel: the server answers it only with the visitor's token, so an
// <img src> cannot load it directly. Only addresses under this widget's own key are ever fetched.
const photos = new Map<string, Promise<string | null>>();

function loadPhoto(url: string, session: Session): Promise<string | null> {
  let p = photos.get(url);
  if (!p) {
    p = withToken(session, async (token) => {
      const res = await fetch(url, { headers: auth(token) });
      if (!res.ok) throw await httpError(res);
      return URL.createObjectURL(await res.blob());
    }).catch(() => null);
    photos.set(url, p);
  }
  return p;
}

function Avatar({ cfg, session, agent }: { cfg: PanelConfig; session: Session; agent: VisitorAgent }) {
  const [src, setSrc] = useState<string | null>(null);
  const url = agent.avatarUrl;
  useEffect(() => {
    setSrc(null);
    if (!url?.startsWith(`/api/widget/${encodeURIComponent(cfg.key)}/avatars/`)) return;
    let on = true;
    void loadPhoto(url, session).then((s) => on && setSrc(s));
    return () => {
      on = false;
    };
  }, [url, cfg.key, session]);
  return src ? (
    // biome-ignore lint/performance/noImgElement: Preact panel, not a Next.js page
    <img class="avatar" src={src} alt="" />
  ) : (
    <span class="avatar" aria-hidden="true">
      {initial(agent.name)}
    </span>
  );
}

/** True once `at` (ms since the epoch) has passed; re-renders at that moment. */
function usePassed(at: number): boolean {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const left = at - Date.now();
    if (left <= 0) return;
    const t = setTimeout(() => setNow(Date.now()), left);
    return () => clearTimeout(t);
  }, [at]);
  return now >= at;
}

export function LiveBar({
  cfg,
  session,
  live,
  asking,
  onLeave,
}: {
  cfg: PanelConfig;
  session: Session;
  live: Live;
  asking: boolean;
  /** Opens the contact form: the visitor tired of waiting leaves their e-mail instead. */
  onLeave: () => void;
}) {
  const { l } = cfg;
  const offer = usePassed(live.wait.offerAt);
  let text: string | null = null;
  if (asking) text = l.asking;
  else if (live.state === "waiting") {
    text = live.agent ? fill(l.assigned, { name: live.agent.name }) : l.waiting;
    if (live.wait.expectedMin) text += ` ${fill(l.expected, { min: String(live.wait.expectedMin) })}`;
  } else if (live.state === "person") text = live.agent ? fill(l.joined, { name: live.agent.name }) : null;
  else if (live.ended) text = live.state === "closed" ? l.closed : l.backToBot;
  if (!text) return null;
  return (
    <>
      <p class={`live-bar ${live.state}`} role="status">
        {(live.state === "person" || live.state === "waiting") && live.agent && (
          <Avatar cfg={cfg} session={session} agent={live.agent} />
        )}
        {text}
      </p>
      {!asking && live.state === "waiting" && offer && (
        <button type="button" class="live-leave" onClick={onLeave}>
          {l.leaveEmail}
        </button>
      )}
    </>
  );
}

export function AgentMessage({ m, cfg, session }: { m: Msg; cfg: PanelConfig; session: Session }) {
  const agent = m.agent ?? { name: "" };
  return (
    <li class="msg bot agent" data-agent="">
      <span class="who">
        <Avatar cfg={cfg} session={session} agent={agent} />
        {agent.name}
        <span class="sr">: </span>
      </span>
      <div class="bubble md">
        <Markdown nodes={parseMarkdown(m.text)} />
      </div>
    </li>
  );
}
