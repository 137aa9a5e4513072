/** @jsxImportSource preact */
// The panel's ways past the bot: the header menu with "Talk to a person" and the inline contact form (opened
// from that menu or by the assistant's request_human pack; the thumbs under an answer are in
// AnswerExtras.tsx). Strings come from cfg.h (src/shared/handoff-words.ts), validation from
// src/shared/contact.ts, as on the server.
import { useEffect, useRef, useState } from "preact/hooks";
import {
  CONTACT_LIMITS,
  type ContactField,
  type ContactProblem,
  contactProblems,
  normaliseContact,
} from "@/shared/contact";
import type { PanelConfig } from "../public-config";
import type { Session } from "./session";
import { HttpError } from "./sse";
import { visitorPost } from "./visitor-post";

export const api = (cfg: PanelConfig, path: string) => `/api/widget/${encodeURIComponent(cfg.key)}/${path}`;

const DOTS = "M5 12h.01M12 12h.01M19 12h.01";

export const Svg = ({ d }: { d: string }) => (
  <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
    <path
      d={d}
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
    />
  </svg>
);

/** The header's "more options" menu; its one entry opens the contact form, whatever the bot's packs. */
export function HandoffMenu({ cfg, onTalk }: { cfg: PanelConfig; onTalk: () => void }) {
  const [open, setOpen] = useState(false);
  const item = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) item.current?.focus();
  }, [open]);
  return (
    <div class="hmenu">
      <button
        type="button"
        class="icon"
        aria-label={cfg.h.menu}
        title={cfg.h.menu}
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <Svg d={DOTS} />
      </button>
      {open && (
        <div class="hmenu-list">
          <button
            type="button"
            ref={item}
            onClick={() => {
              setOpen(false);
              onTalk();
            }}
            onKeyDown={(e) => {
              if (e.key !== "Escape") return;
              // Closes the menu only, not the whole panel (App listens for Escape on the document).
              e.stopPropagation();
              setOpen(false);
            }}
          >
            {cfg.h.talk}
          </button>
        </div>
      )}
    </div>
  );
}

type FormProps = {
  cfg: PanelConfig;
  session: Session;
  source: "menu" | "assistant";
  onClose?: () => void;
};

/** The inline contact form; after sending it says thank you in the visitor's language and stays that way. */
export function ContactForm({ cfg, session, source, onClose }: FormProps) {
  const { h } = cfg;
  const [problems, setProblems] = useState<Partial<Record<ContactField, ContactProblem>>>({});
  const [sent, setSent] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  const id = useRef(`hf${Math.random().toString(36).slice(2, 8)}`).current;
  useEffect(() => {
    if (source === "menu") first.current?.focus();
  }, [source]);

  if (sent) {
    return (
      <p class="hf-done" role="status">
        {sent}
      </p>
    );
  }

  const field = (name: ContactField) => {
    const p = problems[name];
    return {
      id: `${id}-${name}`,
      name,
      "aria-invalid": p ? true : undefined,
      "aria-describedby": p ? `${id}-${name}-e` : undefined,
    };
  };
  const problem = (name: ContactField) =>
    problems[name] ? (
      <span class="hf-err" id={`${id}-${name}-e`}>
        {h.problems[problems[name]]}
      </span>
    ) : null;

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = Object.fromEntries(new FormData(form)) as Record<string, unknown>;
    const input = normaliseContact({ ...data, consent: data.consent === "on" });
    const found = contactProblems(input, cfg.consent !== "");
    setProblems(found);
    setFailure(null);
    const firstBad = Object.keys(found)[0];
    if (firstBad) {
      (form.elements.namedItem(firstBad) as HTMLElement | null)?.focus();
      return;
    }
    setBusy(true);
    try {
      const res = await visitorPost(session, api(cfg, "contact"), {
        ...input,
        conversationId: session.conversationId() ?? null,
        source,
        lang: cfg.lang,
      });
      const body = (await res.json()) as { message?: unknown };
      setSent(typeof body.message === "string" ? body.message : h.sent);
    } catch (err) {
      setFailure(err instanceof HttpError && err.message ? err.message : h.failed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="hf" noValidate onSubmit={submit} aria-labelledby={`${id}-t`}>
      {/* Under the assistant's offer, the bot has just said this sentence: it stays the form's name for screen
          readers but is not shown a second time. From the menu, nothing said it yet. */}
      <p id={`${id}-t`} class={source === "assistant" ? "sr" : "hf-title"}>
        {h.formTitle}
      </p>
      <label for={`${id}-name`}>{h.name}</label>
      <input {...field("name")} ref={first} autocomplete="name" maxLength={100} />
      {problem("name")}
      <p class="hf-hint">{h.reachHint}</p>
      <label for={`${id}-email`}>{h.email}</label>
      <input {...field("email")} type="email" autocomplete="email" maxLength={254} />
      {problem("email")}
      <label for={`${id}-phone`}>{h.phone}</label>
      <input {...field("phone")} type="tel" autocomplete="tel" maxLength={40} />
      {problem("phone")}
      <label for={`${id}-message`}>{h.message}</label>
      <textarea {...field("message")} rows={3} maxLength={CONTACT_LIMITS.message} />
      {problem("message")}
      {cfg.consent && (
        <label class="hf-consent">
          <input {...field("consent")} type="checkbox" />
          <span>{cfg.consent}</span>
        </label>
      )}
      {problem("consent")}
      {failure && (
        <p class="hf-err" role="alert">
          {failure}
        </p>
      )}
      <div class="hf-actions">
        <button type="submit" class="hf-send" disabled={busy}>
          {h.send}
        </button>
        {onClose && (
          <button type="button" onClick={onClose}>
            {h.cancel}
          </button>
        )}
      </div>
    </form>
  );
}

/** The form opened from the menu, below the conversation; it keeps its thank-you until the visitor closes it. */
export function MenuContactForm({
  cfg,
  session,
  note,
  onClose,
}: {
  cfg: PanelConfig;
  session: Session;
  /** Why the form and not a person: nobody can chat right now (said honestly, issue #28). */
  note?: string;
  onClose: () => void;
}) {
  return (
    <div class="hf-menu">
      {note && (
        <p class="live-note" role="status">
          {note}
        </p>
      )}
      <ContactForm cfg={cfg} session={session} source="menu" onClose={onClose} />
    </div>
  );
}
