import { CharCounter } from "@/components/ui/CharCounter";
import { Field } from "@/components/ui/Field";
import { BOT_LIMITS, CONSENT_NAMES, GREETING_NAMES, LANG_STARTER_NAMES } from "@/shared/bot-form";
import { LANGS, LANGUAGE_LABELS } from "@/shared/languages";
import type { BotFieldsProps } from "./field-props";

// Everything a visitor reads, per widget language: the greeting, the starter prompts and the contact form's
// consent sentence. A visitor whose chat is in Spanish sees only Spanish; what a language leaves blank falls
// back as the help text says.

const nameOf = (list: { lang: string; name: string }[], lang: string) =>
  list.find((g) => g.lang === lang)!.name;

export function LanguageFields({ v, errors, canEdit }: BotFieldsProps) {
  const set = LANGS.filter((lang) =>
    [GREETING_NAMES, LANG_STARTER_NAMES, CONSENT_NAMES].some((list) => v(nameOf(list, lang)) !== ""),
  );
  return (
    // The summary is drawn as a button with a turning chevron, so it reads as something to open (issue 30).
    <details className="group rounded-lg border border-[var(--border)] p-3" open={set.length > 0}>
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-2 [&::-webkit-details-marker]:hidden">
        <span className="btn btn-secondary inline-flex items-center gap-2">
          <svg
            aria-hidden="true"
            viewBox="0 0 24 24"
            className="h-4 w-4 transition-transform group-open:rotate-90"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <path d="M9 6l6 6-6 6" />
          </svg>
          Greeting, starters and consent in each language
        </span>
        <span className="muted text-sm font-normal">
          {set.length > 0
            ? `Written for ${set.map((l) => LANGUAGE_LABELS[l]).join(", ")}`
            : "None yet: open to add them"}
        </span>
      </summary>
      <p className="muted mt-2 text-sm">
        Optional. A visitor whose chat is in that language sees these instead of the main ones. A language
        with a greeting of its own but no starters shows no starters (rather than ones in another language); a
        blank consent shows the platform&apos;s sentence in that language, or your main one if you wrote your
        own.
      </p>
      <div className="mt-3 space-y-5">
        {LANGS.map((lang) => {
          const greeting = nameOf(GREETING_NAMES, lang);
          const starters = nameOf(LANG_STARTER_NAMES, lang);
          const consent = nameOf(CONSENT_NAMES, lang);
          return (
            <fieldset key={lang} className="space-y-3" lang={lang}>
              <legend className="label">{LANGUAGE_LABELS[lang]}</legend>
              <Field
                id={`bot-${greeting}`}
                label={`Greeting in ${LANGUAGE_LABELS[lang]}`}
                error={errors[greeting]}
              >
                {(c) => (
                  <textarea {...c} name={greeting} className="input" rows={2} defaultValue={v(greeting)} />
                )}
              </Field>
              {canEdit ? <CharCounter forId={`bot-${greeting}`} max={BOT_LIMITS.greeting} /> : null}
              <Field
                id={`bot-${starters}`}
                label={`Starter prompts in ${LANGUAGE_LABELS[lang]}`}
                help={`One per line, up to ${BOT_LIMITS.starters}.`}
                error={errors[starters]}
              >
                {(c) => (
                  <textarea {...c} name={starters} className="input" rows={3} defaultValue={v(starters)} />
                )}
              </Field>
              <Field
                id={`bot-${consent}`}
                label={`Consent text in ${LANGUAGE_LABELS[lang]}`}
                help="Shown above the contact form's send button."
                error={errors[consent]}
              >
                {(c) => (
                  <textarea {...c} name={consent} className="input" rows={2} defaultValue={v(consent)} />
                )}
              </Field>
            </fieldset>
          );
        })}
      </div>
    </details>
  );
}
