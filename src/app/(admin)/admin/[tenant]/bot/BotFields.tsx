import { useState } from "react";
import { CharCounter } from "@/components/ui/CharCounter";
import { Field } from "@/components/ui/Field";
import { BOT_DEFAULTS } from "@/shared/bot-defaults";
import { BOT_LIMITS, STARTER_NAMES } from "@/shared/bot-form";
import { FIGURE_CHECK_DEFAULT } from "@/shared/figure-check";
import { LANGUAGE_LABELS } from "@/shared/languages";
import type { BotFieldsProps } from "./field-props";
import { LanguageFields } from "./LanguageFields";

// The Bot form's three cards. Each reads the stored values through `v` and shows the save's field errors;
// the counters show only to someone who can edit.

export type { BotFieldsProps };

/** How the bot introduces itself: its name, greetings, instructions and starter prompts. */
export function IntroFields({ v, errors, canEdit }: BotFieldsProps) {
  return (
    <fieldset disabled={!canEdit} className="card space-y-4">
      <legend className="sr-only">How the bot introduces itself</legend>
      <Field id="bot-displayName" label="Name visitors see" error={errors.displayName} required>
        {(c) => <input {...c} name="displayName" className="input" defaultValue={v("displayName")} />}
      </Field>
      {canEdit ? <CharCounter forId="bot-displayName" max={BOT_LIMITS.displayName} /> : null}
      <Field
        id="bot-greeting"
        label="Greeting"
        help="The first message of every chat."
        error={errors.greeting}
      >
        {(c) => <textarea {...c} name="greeting" className="input" rows={2} defaultValue={v("greeting")} />}
      </Field>
      {canEdit ? <CharCounter forId="bot-greeting" max={BOT_LIMITS.greeting} /> : null}
      <LanguageFields v={v} errors={errors} canEdit={canEdit} />
      <Field
        id="bot-instructions"
        label="Instructions"
        help={`How the bot should behave: tone, what to talk about, what to avoid. Up to ${BOT_LIMITS.instructions.toLocaleString("en")} characters.`}
        error={errors.instructions}
      >
        {(c) => (
          <textarea {...c} name="instructions" className="input" rows={8} defaultValue={v("instructions")} />
        )}
      </Field>
      {canEdit ? <CharCounter forId="bot-instructions" max={BOT_LIMITS.instructions} /> : null}
      {STARTER_NAMES.map((name, i) => (
        <Field
          key={name}
          id={`bot-${name}`}
          label={`Starter prompt ${i + 1}`}
          help={
            i === 0
              ? `Shown as buttons until the visitor's first message, up to ${BOT_LIMITS.starter} characters each.`
              : undefined
          }
          error={errors[name]}
        >
          {(c) => <input {...c} name={name} className="input" defaultValue={v(name)} />}
        </Field>
      ))}
    </fieldset>
  );
}

/** The model the operator offers and the language the bot starts in. */
export function ModelFields({ v, errors, canEdit, models }: BotFieldsProps & { models: string[] }) {
  // The stored model may have been withdrawn by the operator; then the default is preselected.
  const model = models.includes(v("model")) ? v("model") : "";
  return (
    <fieldset disabled={!canEdit} className="card space-y-4">
      <legend className="sr-only">Model, language and figures</legend>
      {models.length === 0 ? (
        <div>
          <p className="label">Model</p>
          <p className="text-sm">
            The platform operator has not configured a model yet, so the bot cannot answer. Ask them to set
            MICHI_MODELS.
          </p>
          <input type="hidden" name="model" value="" />
        </div>
      ) : (
        <Field id="bot-model" label="Model" help="Offered by your platform operator." error={errors.model}>
          {(c) => (
            <select {...c} name="model" className="input" defaultValue={model}>
              <option value="">Platform default ({models[0]})</option>
              {models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <Field
        id="bot-language"
        label="Language"
        help="The language the bot starts in."
        error={errors.language}
      >
        {(c) => (
          <select {...c} name="language" className="input" defaultValue={v("language") || "en"}>
            {Object.entries(LANGUAGE_LABELS).map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="actionsOff" value="on" defaultChecked={v("actionsOff") === "true"} />
        Switch off actions: tools that send something for the visitor (after they confirm) are not used
      </label>
      <Field
        id="bot-figureCheck"
        label="Prices, times and other figures"
        help="Before an answer is shown, its prices, opening times, dates, phone numbers, e-mail addresses, percentages and quantities are looked up in what the bot read for it: your tools' results, your website's pages and your instructions. This is what happens when one is not found there."
        error={errors.figureCheck}
      >
        {(c) => (
          <select
            {...c}
            name="figureCheck"
            className="input"
            defaultValue={v("figureCheck") || FIGURE_CHECK_DEFAULT}
          >
            <option value="mark">Show the answer with a note: "Please check this figure with us"</option>
            <option value="hold">Don't show the answer: say so honestly and offer a person instead</option>
            <option value="off">Show the answer as it is, without checking</option>
          </select>
        )}
      </Field>
    </fieldset>
  );
}

/** The launcher's look: theme colour (typed or picked), position and avatar. */
export function LookFields({ v, errors, canEdit }: BotFieldsProps) {
  const [color, setColor] = useState(v("color"));
  return (
    <fieldset disabled={!canEdit} className="card space-y-4">
      <legend className="sr-only">Look</legend>
      <Field
        id="bot-color"
        label="Theme colour"
        help="As # and six hex digits, like #0f766e."
        error={errors.color}
      >
        {(c) => (
          <div className="flex items-center gap-2">
            <input
              {...c}
              name="color"
              className="input max-w-40 font-mono"
              value={color}
              onChange={(e) => setColor(e.target.value)}
              spellCheck={false}
            />
            <input
              type="color"
              aria-label="Pick the theme colour"
              className="h-9 w-12 cursor-pointer rounded border border-[var(--border)]"
              value={/^#[0-9a-f]{6}$/i.test(color) ? color : BOT_DEFAULTS.color}
              onChange={(e) => setColor(e.target.value)}
            />
          </div>
        )}
      </Field>
      <fieldset>
        <legend className="label">Launcher position</legend>
        <div className="flex gap-4">
          {(["right", "left"] as const).map((p) => (
            <label key={p} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="position"
                value={p}
                defaultChecked={(v("position") || "right") === p}
              />
              Bottom {p}
            </label>
          ))}
        </div>
        {errors.position ? <p className="field-error">{errors.position}</p> : null}
      </fieldset>
      <Field
        id="bot-avatarUrl"
        label="Avatar image address"
        help="Optional. An https:// address of a square image."
        error={errors.avatarUrl}
      >
        {(c) => (
          <input
            {...c}
            name="avatarUrl"
            className="input font-mono"
            inputMode="url"
            defaultValue={v("avatarUrl")}
          />
        )}
      </Field>
    </fieldset>
  );
}
