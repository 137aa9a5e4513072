/** @jsxImportSource preact */
// What follows an assistant's answer in the panel: the thumbs up / down with an optional comment, and the
// contact form when the assistant offered a person (request_human).
import { useState } from "preact/hooks";
import type { PanelConfig } from "../public-config";
import { api, ContactForm, Svg } from "./Handoff";
import type { Msg } from "./messages";
import type { Session } from "./session";
import { visitorPost } from "./visitor-post";

const UP = "M7 11v9H4v-9zM7 11l4-7c1.5 0 2.5 1 2 3l-1 3h6c1 0 2 1 1.7 2.2l-1.6 6.6c-.3.8-1 1.2-1.8 1.2H7";
const DOWN = "M7 13V4H4v9zM7 13l4 7c1.5 0 2.5-1 2-3l-1-3h6c1 0 2-1 1.7-2.2l-1.6-6.6C17.8 4.4 17.1 4 16.3 4H7";

/** Thumbs up / down under a finished answer; "down" offers a one-line comment. Rating again replaces. */
export function RateAnswer({
  cfg,
  session,
  messageId,
  rated,
}: {
  cfg: PanelConfig;
  session: Session;
  messageId: string;
  rated?: "up" | "down";
}) {
  const { h } = cfg;
  const [rating, setRating] = useState<"up" | "down" | null>(rated ?? null);
  const [asking, setAsking] = useState(false);
  const [thanked, setThanked] = useState(false);
  const [comment, setComment] = useState("");
  const send = (r: "up" | "down", text: string, after: (ok: boolean) => void) =>
    visitorPost(session, api(cfg, "feedback"), { messageId, rating: r, ...(text ? { comment: text } : {}) })
      .then(() => {
        setRating(r);
        return true;
      })
      .catch(() => false)
      .then(after);
  return (
    <div class="rate">
      <button
        type="button"
        class="icon"
        aria-label={h.up}
        title={h.up}
        aria-pressed={rating === "up"}
        onClick={() =>
          send("up", "", (ok) => {
            setAsking(false);
            setThanked(ok);
          })
        }
      >
        <Svg d={UP} />
      </button>
      <button
        type="button"
        class="icon"
        aria-label={h.down}
        title={h.down}
        aria-pressed={rating === "down"}
        onClick={() =>
          send("down", "", (ok) => {
            setAsking(ok);
            setThanked(false);
          })
        }
      >
        <Svg d={DOWN} />
      </button>
      {asking && (
        <form
          class="rate-why"
          onSubmit={(e) => {
            e.preventDefault();
            send("down", comment.trim(), (ok) => {
              setAsking(!ok);
              setThanked(ok);
            });
          }}
        >
          <input
            aria-label={h.comment}
            placeholder={h.comment}
            maxLength={300}
            value={comment}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
          <button type="submit">{h.commentSend}</button>
        </form>
      )}
      {thanked && (
        <span class="rate-thanks" role="status">
          {h.thanks}
        </span>
      )}
    </div>
  );
}

/** What follows an answer: the contact form when the assistant offered a person, the thumbs when it is done. */
export function AnswerExtras({ m, cfg, session }: { m: Msg; cfg: PanelConfig; session: Session }) {
  return (
    <>
      {m.status === "done" && m.serverId && (
        <RateAnswer cfg={cfg} session={session} messageId={m.serverId} rated={m.rating} />
      )}
      {m.form && <ContactForm cfg={cfg} session={session} source="assistant" />}
    </>
  );
}
