import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { LiveState, VisitorAgent, VisitorLiveEvent } from "@/shared/live-events";
import type { PanelConfig } from "../public-config";
import { subscribeLive } from "./live-stream";
import { type Msg, nextId } from "./messages";
import type { Session } from "./session";
import { visitorPost } from "./visitor-post";

// The visitor's side of a live conversation with a person (issue #28): asking for one, following the
// conversation's live stream once a person is involved, and showing the person's messages as they come.
// The stream replays the conversation's log from the start, so after a reload the state is rebuilt and a
// message already on screen (restored from the history) is recognised by its id and not shown twice.

/** Why the visitor gets the contact form instead of a person. */
export type NoPerson = "nobody_online" | "closed";

export type Live = {
  state: LiveState;
  agent: VisitorAgent | null;
  /** The person's part ended in this visit (handed back or closed): say so once. */
  ended: boolean;
  /**
   * While waiting: the business's usual first answer in minutes (null: unknown), and when (ms since the epoch)
   * the panel offers the contact form instead. After a reload the wait's start is unknown, so at once.
   */
  wait: { expectedMin: number | null; offerAt: number };
  /** Asks for a person; null when the conversation now waits for (or has) one. */
  ask(): Promise<NoPerson | null>;
  /** Follow a conversation already live (after a reload, or when a turn says a person has it). */
  follow(state?: LiveState): void;
  reset(): void;
};

export function useLive(
  cfg: PanelConfig,
  session: Session,
  base: string,
  setMsgs: (fn: (ms: Msg[]) => Msg[]) => void,
  announce: (text: string) => void,
): Live {
  const [state, setState] = useState<LiveState>("bot");
  const [agent, setAgent] = useState<VisitorAgent | null>(null);
  const [ended, setEnded] = useState(false);
  const [following, setFollowing] = useState<string | null>(null);
  const [wait, setWait] = useState<Live["wait"]>({ expectedMin: null, offerAt: 0 });
  const l = cfg.l;
  const lRef = useRef(l);
  lRef.current = l;

  const onEvent = useCallback(
    (e: VisitorLiveEvent) => {
      if (e.kind === "state") {
        setState(e.data.state);
        if (e.data.state === "person") {
          setAgent(e.data.agent ?? null);
          setEnded(false);
          if (e.data.agent) announce(lRef.current.joined.replace("{name}", e.data.agent.name));
        } else if (e.data.state === "bot" || e.data.state === "closed") {
          setAgent(null);
          setEnded(true);
          announce(e.data.state === "bot" ? lRef.current.backToBot : lRef.current.closed);
        } else setEnded(false);
      } else if (e.kind === "assigned") {
        // Who will answer while the visitor still waits (given by round-robin, or passed on by a teammate).
        setAgent(e.data.agent);
        announce(lRef.current.assigned.replace("{name}", e.data.agent.name));
      } else if (e.kind === "agent_message") {
        const { messageId, text, agent: who } = e.data;
        setMsgs((ms) =>
          ms.some((m) => m.serverId === messageId)
            ? ms
            : [
                ...ms,
                {
                  id: nextId(),
                  role: "agent",
                  text,
                  chips: [],
                  status: "done",
                  serverId: messageId,
                  agent: who.avatarUrl ? { name: who.name, avatarUrl: who.avatarUrl } : { name: who.name },
                },
              ],
        );
        announce(`${who.name}: ${text}`);
      }
    },
    [announce, setMsgs],
  );

  useEffect(() => {
    if (!following) return;
    return subscribeLive(following, onEvent, {
      base,
      token: (force) => session.token(force),
      lang: cfg.lang,
    });
  }, [following, base, session, onEvent, cfg.lang]);

  const follow = useCallback(
    (at?: LiveState) => {
      const id = session.conversationId();
      if (!id) return;
      if (at) setState(at);
      setFollowing(id);
    },
    [session],
  );

  const ask = useCallback(async (): Promise<NoPerson | null> => {
    const id = session.conversationId();
    // Before the first message there is no conversation yet: the server opens one if someone can take it.
    const res = id
      ? await visitorPost(session, `${base}/conversations/${encodeURIComponent(id)}/live`, {})
      : await visitorPost(session, `${base}/live`, { lang: cfg.lang, pageUrl: cfg.pageUrl || undefined });
    const body = (await res.json()) as {
      live?: unknown;
      state?: unknown;
      reason?: unknown;
      conversationId?: unknown;
      expectedWaitMin?: unknown;
      offerContactAfterSec?: unknown;
    };
    if (body.live === true) {
      const after = typeof body.offerContactAfterSec === "number" ? body.offerContactAfterSec : 0;
      setWait({
        expectedMin: typeof body.expectedWaitMin === "number" ? body.expectedWaitMin : null,
        offerAt: Date.now() + after * 1000,
      });
      if (!id && typeof body.conversationId === "string") session.setConversation(body.conversationId);
      follow(body.state === "person" ? "person" : "waiting");
      setEnded(false);
      return null;
    }
    return body.reason === "closed" ? "closed" : "nobody_online";
  }, [base, session, follow, cfg.lang, cfg.pageUrl]);

  const reset = useCallback(() => {
    setFollowing(null);
    setState("bot");
    setAgent(null);
    setEnded(false);
  }, []);

  return { state, agent, ended, wait, ask, follow, reset };
}
