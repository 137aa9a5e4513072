import "server-only";
import { z } from "zod";
import type { BotSettings } from "@/lib/db/schema";
import { BOT_DEFAULTS } from "@/shared/bot-defaults";
import {
  BOT_LIMITS,
  CONSENT_NAMES,
  GREETING_NAMES,
  LANG_STARTER_NAMES,
  STARTER_NAMES,
} from "@/shared/bot-form";
import { FIGURE_CHECK_DEFAULT, FIGURE_CHECK_MODES } from "@/shared/figure-check";
import { LANGS } from "@/shared/languages";
import { isTruthy } from "@/shared/parse";

// What the Bot page accepts. Every message is written for a shop owner, not a developer.

const trimmed = (max: number, what: string) =>
  z
    .string()
    .default("")
    .transform((v) => v.trim())
    .pipe(z.string().max(max, `${what} can be at most ${max.toLocaleString("en")} characters`));

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

function httpsUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === "https:" && !u.username && !u.password && !!u.hostname;
  } catch {
    return false;
  }
}

/** The Bot form's schema; `models` is the operator's allowed list (empty = not configured). */
export function botFormSchema(models: readonly string[]) {
  const starters = Object.fromEntries(
    STARTER_NAMES.map((n) => [n, trimmed(BOT_LIMITS.starter, "A starter prompt")]),
  ) as Record<string, ReturnType<typeof trimmed>>;
  const greetings = Object.fromEntries(
    GREETING_NAMES.map((g) => [g.name, trimmed(BOT_LIMITS.greeting, "The greeting")]),
  ) as Record<string, ReturnType<typeof trimmed>>;
  const langStarters = Object.fromEntries(
    LANG_STARTER_NAMES.map((g) => [
      g.name,
      z
        .string()
        .default("")
        .transform((v) =>
          v
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter(Boolean),
        )
        .pipe(
          z
            .array(
              z
                .string()
                .max(BOT_LIMITS.starter, `A starter prompt can be at most ${BOT_LIMITS.starter} characters`),
            )
            .max(BOT_LIMITS.starters, `At most ${BOT_LIMITS.starters} starter prompts, one per line`),
        ),
    ]),
  ) as Record<string, z.ZodType<string[]>>;
  const consents = Object.fromEntries(
    CONSENT_NAMES.map((g) => [g.name, trimmed(BOT_LIMITS.consent, "The consent text")]),
  ) as Record<string, ReturnType<typeof trimmed>>;
  return z.object({
    displayName: trimmed(BOT_LIMITS.displayName, "The name").pipe(
      z.string().min(1, "Enter the name visitors see on the chat"),
    ),
    greeting: trimmed(BOT_LIMITS.greeting, "The greeting"),
    instructions: trimmed(BOT_LIMITS.instructions, "The instructions"),
    model: z
      .string()
      .default("")
      .refine((v) => v === "" || models.includes(v), "Choose one of the models offered"),
    language: z.enum(LANGS, "Choose a language from the list"),
    color: z
      .string()
      .default("")
      .transform((v) => v.trim())
      .refine((v) => HEX.test(v), "Enter a colour as # and six hex digits, like #0f766e"),
    position: z.enum(["right", "left"], "Choose right or left"),
    // Packs that act for the visitor (a pack with `confirm`) are not offered to the model (issue 41).
    actionsOff: z.preprocess(isTruthy, z.boolean()).default(false),
    avatarUrl: trimmed(BOT_LIMITS.avatarUrl, "The avatar address").refine(
      (v) => v === "" || httpsUrl(v),
      "The avatar address must start with https://",
    ),
    figureCheck: z
      .enum(FIGURE_CHECK_MODES, "Choose what the bot does with a figure it cannot confirm")
      .default(FIGURE_CHECK_DEFAULT),
    ...starters,
    ...greetings,
    ...langStarters,
    ...consents,
  });
}

export type BotFormInput = z.infer<ReturnType<typeof botFormSchema>>;

/** The settings document to store, from the parsed form; blank optional values are left out. */
export function toBotSettings(input: BotFormInput): BotSettings {
  const color =
    input.color.length === 4 ? `#${[...input.color.slice(1)].map((c) => c + c).join("")}` : input.color;
  const starters = STARTER_NAMES.map((n) => (input as unknown as Record<string, string>)[n] ?? "").filter(
    Boolean,
  );
  const out: BotSettings = {
    displayName: input.displayName,
    language: input.language,
    color: color.toLowerCase(),
    position: input.position,
    starters,
  };
  if (input.greeting) out.greeting = input.greeting;
  const greetings: Record<string, string> = {};
  for (const g of GREETING_NAMES) {
    const text = (input as unknown as Record<string, string>)[g.name];
    if (text) greetings[g.lang] = text;
  }
  if (Object.keys(greetings).length > 0) out.greetings = greetings;
  const byLang: Record<string, string[]> = {};
  for (const g of LANG_STARTER_NAMES) {
    const list = (input as unknown as Record<string, string[]>)[g.name] ?? [];
    if (list.length > 0) byLang[g.lang] = list;
  }
  if (Object.keys(byLang).length > 0) out.startersByLang = byLang;
  const consents: Record<string, string> = {};
  for (const g of CONSENT_NAMES) {
    const text = (input as unknown as Record<string, string>)[g.name];
    if (text) consents[g.lang] = text;
  }
  if (Object.keys(consents).length > 0) out.consents = consents;
  if (input.instructions) out.instructions = input.instructions;
  if (input.model) out.model = input.model;
  if (input.avatarUrl) out.avatarUrl = input.avatarUrl;
  if (input.actionsOff) out.actionsOff = true;
  // The default is left out, as a bot that never saved the form has it.
  if (input.figureCheck !== FIGURE_CHECK_DEFAULT) out.figureCheck = input.figureCheck;
  return out;
}

/** The strings the Bot form starts with, from the stored document. */
export function botFormValues(bot: BotSettings): Record<string, string> {
  const values: Record<string, string> = {
    displayName: bot.displayName ?? "",
    greeting: bot.greeting ?? "",
    instructions: bot.instructions ?? "",
    model: bot.model ?? "",
    language: bot.language ?? BOT_DEFAULTS.language,
    color: bot.color ?? BOT_DEFAULTS.color,
    position: bot.position ?? BOT_DEFAULTS.position,
    avatarUrl: bot.avatarUrl ?? "",
    actionsOff: bot.actionsOff ? "true" : "",
    figureCheck: bot.figureCheck ?? FIGURE_CHECK_DEFAULT,
  };
  for (const g of GREETING_NAMES) values[g.name] = bot.greetings?.[g.lang] ?? "";
  for (const g of LANG_STARTER_NAMES) values[g.name] = (bot.startersByLang?.[g.lang] ?? []).join("\n");
  for (const g of CONSENT_NAMES) values[g.name] = bot.consents?.[g.lang] ?? "";
  STARTER_NAMES.forEach((n, i) => {
    values[n] = bot.starters?.[i] ?? "";
  });
  return values;
}
