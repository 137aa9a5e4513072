/** @jsxImportSource preact */
import { useEffect, useRef } from "preact/hooks";
import type { ConfirmCard as Card } from "@/shared/chat-events";
import type { PanelConfig } from "../public-config";

// A confirmation card (issue 41): what the assistant is about to send for the visitor, worded and labelled by
// the server, and two buttons. Nothing is sent unless Confirm is pressed; typing "yes" does not count. The
// card takes focus when it appears (its title is read first), so a keyboard or screen-reader user lands on
// it; a labelled region; its values are a description list, each label with its value.
export function ConfirmCard({
  card,
  cfg,
  onDecide,
}: {
  card: Card;
  cfg: PanelConfig;
  onDecide: (decision: "confirm" | "cancel") => void;
}) {
  const box = useRef<HTMLElement>(null);
  useEffect(() => box.current?.focus(), []);
  const title = `cc-${card.callId}`;
  return (
    <section class="act" aria-labelledby={title} tabIndex={-1} ref={box}>
      <p class="act-title" id={title}>
        {card.title}
      </p>
      <dl>
        {card.fields.map((f) => (
          <div key={f.label}>
            <dt>{f.label}</dt>
            <dd>{f.value}</dd>
          </div>
        ))}
      </dl>
      <p class="act-note">{cfg.t.confirmNote}</p>
      <div class="foot">
        <button type="button" class="primary" onClick={() => onDecide("confirm")}>
          {cfg.t.confirmAction}
        </button>
        <button type="button" onClick={() => onDecide("cancel")}>
          {cfg.t.cancel}
        </button>
      </div>
    </section>
  );
}
