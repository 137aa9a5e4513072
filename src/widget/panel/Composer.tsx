/** @jsxImportSource preact */
import type { RefObject } from "preact";
import { CHAT_MESSAGE_MAX } from "@/shared/message";
import type { PanelConfig } from "../public-config";
import { Icon, SEND, STOP } from "./Icon";

const MAX = CHAT_MESSAGE_MAX;
/** The count shows from here, so the limit is seen before it cuts. */
const SHOW_COUNT = 1800;

const grow = (el: HTMLTextAreaElement) => {
  el.style.height = "auto";
  el.style.height = `${Math.min(el.scrollHeight, 140)}px`;
};

/** The message box: Enter sends, Shift+Enter is a new line; while an answer streams, Stop replaces Send. */
export function Composer({
  cfg,
  input,
  draft,
  setDraft,
  busy,
  send,
  stop,
}: {
  cfg: PanelConfig;
  input: RefObject<HTMLTextAreaElement>;
  draft: string;
  setDraft: (text: string) => void;
  busy: boolean;
  send: (text: string) => boolean;
  stop: () => void;
}) {
  const { t } = cfg;
  const submit = () => {
    if (send(draft)) {
      setDraft("");
      if (input.current) {
        input.current.value = "";
        grow(input.current);
      }
    }
  };
  return (
    <form
      class="compose"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label for="michi-input" class="sr">
        {t.messageLabel}
      </label>
      <textarea
        id="michi-input"
        ref={input}
        rows={1}
        maxLength={MAX}
        aria-describedby={draft.length >= SHOW_COUNT ? "michi-count" : undefined}
        placeholder={t.placeholder}
        value={draft}
        onInput={(e) => {
          setDraft(e.currentTarget.value);
          grow(e.currentTarget);
        }}
        onKeyDown={(e) => {
          // An IME composing Japanese keeps its Enter.
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {draft.length >= SHOW_COUNT && (
        <span id="michi-count" class={`count${draft.length >= MAX ? " full" : ""}`}>
          {draft.length}/{MAX}
        </span>
      )}
      {busy ? (
        // Stop ends the turn and keeps what arrived.
        <button type="button" class="send" aria-label={t.stop} title={t.stop} onClick={stop}>
          <Icon d={STOP} />
        </button>
      ) : (
        <button type="submit" class="send" aria-label={t.send} title={t.send} disabled={!draft.trim()}>
          <Icon d={SEND} />
        </button>
      )}
    </form>
  );
}
