import "server-only";
import { sealAvatarRef } from "@/lib/security/avatar-token";
import type { LiveAgent, LiveEvent, VisitorAgent, VisitorLiveEvent } from "@/shared/live-events";

// How a person of the business reaches a visitor: their name and, when they have a profile photo, an opaque
// address of it under the widget's key. The live log stores the person's user id (the console needs it); it
// is taken out here, on the visitor's side of every stream and history, so it never reaches a visitor.

export type VisitorView = { key: string; tenantId: string; visitorId: string; authSecret: string };

export function avatarPath(view: VisitorView, userId: string, version: string): string {
  const token = sealAvatarRef(view.authSecret, {
    tenantId: view.tenantId,
    visitorId: view.visitorId,
    userId,
    version,
  });
  return `/api/widget/${encodeURIComponent(view.key)}/avatars/${token}`;
}

export function visitorAgent(view: VisitorView, agent: LiveAgent): VisitorAgent {
  return agent.avatar
    ? { name: agent.name, avatarUrl: avatarPath(view, agent.id, agent.avatar) }
    : { name: agent.name };
}

/** One event as a visitor may see it (the visitor's stream carries only visitor kinds). */
export function visitorEvent(view: VisitorView, e: LiveEvent): VisitorLiveEvent {
  if (e.kind === "agent_message")
    return { ...e, data: { ...e.data, agent: visitorAgent(view, e.data.agent) } };
  if (e.kind === "state" && e.data.agent)
    return { ...e, data: { ...e.data, agent: visitorAgent(view, e.data.agent) } };
  if (e.kind === "assigned") return { ...e, data: { agent: visitorAgent(view, e.data.agent) } };
  // The remaining visitor kinds name nobody; notes never reach this stream.
  return e as VisitorLiveEvent;
}

const NAMES_A_PERSON = /^event: (?:state|agent_message|assigned)$/m;

/**
 * The held stream's Server-Sent Events with every person re-written for the visitor. Events are blocks ending
 * in a blank line (src/lib/live/stream.ts writes whole blocks, but a block split across chunks is joined
 * first); only the kinds that can name a person are parsed, the rest pass through as they came.
 */
export function visitorSse(view: VisitorView, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  let pending = "";
  const rewrite = (block: string): string => {
    if (!NAMES_A_PERSON.test(block)) return block;
    return block.replace(/^data: (.*)$/m, (_, json: string) => {
      try {
        return `data: ${JSON.stringify(visitorEvent(view, JSON.parse(json) as LiveEvent))}`;
      } catch {
        return "data: {}"; // unreadable: the panel drops an event it cannot read
      }
    });
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += dec.decode(chunk, { stream: true });
        const end = pending.lastIndexOf("\n\n");
        if (end < 0) return;
        const whole = pending.slice(0, end + 2);
        pending = pending.slice(end + 2);
        controller.enqueue(
          enc.encode(
            whole
              .split(/(?<=\n\n)/)
              .map(rewrite)
              .join(""),
          ),
        );
      },
      flush(controller) {
        if (pending) controller.enqueue(enc.encode(rewrite(pending)));
      },
    }),
  );
}
