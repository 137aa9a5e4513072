import "server-only";
import type { Lang } from "@/shared/languages";
import type { Logger } from "../log";
import type { BookingDesk } from "./booking-desk";
import type { KnowledgeSearcher } from "./knowledge-search";

// The tool-pack contract (packs import it through registry.ts). A pack is plain data plus one `run` function;
// the platform derives the admin form, the config validation, the model's tool list and the visitor's chip
// from it. See docs/tool-packs.md.

export { isLang, type Lang } from "@/shared/languages";

type FieldBase = {
  /** The config key: camelCase letters and digits. */
  key: string;
  label: string;
  required?: boolean;
  help?: string;
  placeholder?: string;
};

export type TextField = FieldBase & {
  type: "text" | "textarea";
  default?: string;
  maxLength?: number;
  /** "email": the value must be an e-mail address (checked on save). */
  format?: "email";
};
/** https only, on one of the tenant's site domains, checked on save and again when connecting. */
export type UrlField = FieldBase & { type: "url"; default?: string };
/** Write-only in the admin; encrypted at rest; decrypted only for `run`. */
export type SecretField = FieldBase & {
  type: "secret";
  maxLength?: number;
  /** "whsec": when none is set, the platform makes a Standard Webhooks secret on save and shows it once. */
  generate?: "whsec";
};
export type NumberField = FieldBase & {
  type: "number";
  default?: number;
  min?: number;
  max?: number;
  integer?: boolean;
};
export type BooleanField = FieldBase & { type: "boolean"; default?: boolean };
export type SelectField = FieldBase & {
  type: "select";
  options: readonly { value: string; label: string }[];
  default?: string;
};
export type ListField = FieldBase & {
  type: "list";
  default?: readonly string[];
  maxItems?: number;
  itemMaxLength?: number;
  /** Each entry must match; `itemMessage` tells the admin what was expected. */
  itemPattern?: RegExp;
  itemMessage?: string;
  /** A specific explanation for a common mistake in an entry (checked before the pattern); null when fine. */
  itemProblem?: (entry: string) => string | null;
};
/** A fixed URL path such as /api/menu.json: starts with "/", no "..", no scheme, host, query or fragment. */
export type PathField = FieldBase & { type: "path"; default?: string };

export type ConfigField =
  | TextField
  | UrlField
  | SecretField
  | NumberField
  | BooleanField
  | SelectField
  | ListField
  | PathField;

export type ConfigValue = string | number | boolean | string[];

type ValueOf<F> = F extends { type: "number" }
  ? number
  : F extends { type: "boolean" }
    ? boolean
    : F extends { type: "list" }
      ? string[]
      : F extends { type: "select"; options: readonly { value: infer V }[] }
        ? V
        : string;

// Booleans and lists always have a value (false, []); other fields are present when required or defaulted.
type AlwaysPresent<F> = F extends { required: true }
  ? true
  : F extends { default: unknown }
    ? true
    : F extends { type: "boolean" | "list" }
      ? true
      : false;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The parsed config a pack's `run` receives, typed from its `configFields`. */
export type ConfigOf<Fs extends readonly ConfigField[]> = Simplify<
  { [F in Fs[number] as AlwaysPresent<F> extends true ? F["key"] : never]: ValueOf<F> } & {
    [F in Fs[number] as AlwaysPresent<F> extends true ? never : F["key"]]?: ValueOf<F>;
  }
>;

/** What a pack sees when it is typed without its fields (e.g. `const p: ToolPack = {...}`). */
export type AnyConfig = Record<string, ConfigValue | undefined>;

export type ToolArgs = Record<string, unknown>;

/** Supplied by the platform for each run; never by the model or the visitor. */
export type ToolContext = {
  tenantId: string;
  conversationId: string | null;
  /** Aborts on timeout or when the visitor goes away; pass it on to getJson. */
  signal: AbortSignal;
  log: Logger;
  /** The language of the conversation, when known. */
  lang?: Lang;
  /** The business's indexed knowledge, for search_knowledge: whoever runs the pack passes it. */
  knowledge?: KnowledgeSearcher;
  /** Files a booking request with the business, for request_booking: whoever runs a confirmed call passes it. */
  bookings?: BookingDesk;
  /**
   * Set for a pack with `confirm` only: the key stored with the visitor's confirmed call. Send it to the
   * business (post_json's Idempotency-Key) so a repeated request is recognised as the same call.
   */
  idempotencyKey?: string;
  /**
   * The visitor the business's own site vouched for with a signed token (docs/widget.md "Verified visitors"):
   * `id` is the token's `sub`. Absent for an anonymous visitor and on channels without sign-in.
   */
  visitor?: ToolVisitor;
};

/** One argument the confirmation card shows, under a label the visitor reads. */
export type ConfirmField = {
  /** A property of the pack's parameters schema. */
  key: string;
  label: string;
  /** The label in other languages. */
  labels?: Partial<Record<Lang, string>>;
};

/**
 * A pack whose call acts on the visitor's behalf (sends an order, books a table) declares `confirm`: the
 * platform then never runs it on the model's say-so. It stores the call, shows the visitor a card with the
 * title and the labelled values, and runs `run` once, only after the visitor's explicit Confirm (see
 * docs/tool-packs.md). Plain data so npm run check:packs can check every field against the schema.
 */
export type ConfirmSpec<C = AnyConfig> = {
  /** The card's heading: fixed words, words per language (`en` the fallback), or from the tenant's config. */
  title: string | ({ en: string } & Partial<Record<Lang, string>>) | ((config: C) => string);
  /** The arguments shown, in order: fixed, or from the tenant's config (post_json's declared fields). */
  fields: readonly ConfirmField[] | ((config: C) => readonly ConfirmField[]);
};

/** A verified visitor as a pack sees it. */
export type ToolVisitor = { id: string; email?: string; name?: string };

/** The OpenAI function definition the model sees. */
export type ToolDefinition = {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: {
      type: "object";
      properties: Record<string, unknown>;
      required?: readonly string[];
      [k: string]: unknown;
    };
  };
};

export type ToolPack<Fs extends readonly ConfigField[] = readonly ConfigField[]> = {
  id: string;
  /** What the admin calls it on the Tools page, e.g. "Opening hours" (the id is for the model, the label for
   * visitors). Falls back to the label. */
  name?: string;
  /** The chip text visitors see while the pack runs, e.g. "Checking if we're open". */
  label: string;
  definition: ToolDefinition;
  configFields: Fs;
  // Method syntax on purpose: it lets a pack with typed fields sit in a list of ToolPack.
  run(
    config: readonly ConfigField[] extends Fs ? AnyConfig : ConfigOf<Fs>,
    args: ToolArgs,
    ctx: ToolContext,
  ): Promise<string | object>;

  /** The group on the tenant form, e.g. "For every business". */
  category?: string;
  /** One admin-facing sentence. */
  summary?: string;
  /** Added to the system prompt only while the pack is enabled. */
  promptHint?: string;
  /** The chip text in other languages. */
  labels?: Partial<Record<Lang, string>>;
  /** Replaces the model-facing description from the tenant's config (fetch_json's admin sentence). */
  describe?(config: readonly ConfigField[] extends Fs ? AnyConfig : ConfigOf<Fs>): string | undefined;
  /**
   * Something the visitor's panel shows after a successful run, besides the answer: "contact_form" (the
   * request_human pack) makes the chat stream send a `handoff` event. The model sees only the pack's result.
   */
  ui?: "contact_form";
  /** This pack acts for the visitor: each call waits for their Confirm on a card (see ConfirmSpec). */
  confirm?: ConfirmSpec<readonly ConfigField[] extends Fs ? AnyConfig : ConfigOf<Fs>>;
  /**
   * The parameters schema the model sees from the tenant's config, when the tenant declares the arguments
   * (post_json's fields); `definition.function.parameters` otherwise. Arguments are validated against it.
   */
  parametersFor?(
    config: readonly ConfigField[] extends Fs ? AnyConfig : ConfigOf<Fs>,
  ): ToolDefinition["function"]["parameters"];
  /**
   * The pack acts for a known person (their orders, their bookings): while the business requires it (the
   * default), it is offered to the model only when the visitor is verified, and `ctx.visitor` is then set.
   */
  needsVerifiedVisitor?: boolean;
  /**
   * For a pack whose fields are all optional but which has nothing to say until some are filled in (business
   * details, typed opening hours): what it still lacks, in the owner's words ("your weekly hours"), given the
   * saved settings (secrets left out, a field absent until saved); null once it can answer. The Tools page
   * then refuses to switch it on without saying so, and the Overview names it.
   */
  lacks?(config: Readonly<Record<string, unknown>>): string | null;
  /** A config and arguments the conformance kit (npm run check:packs) runs the pack with. */
  example?: {
    config: Record<string, ConfigValue>;
    args: ToolArgs;
    note?: string;
    /** Canned upstream answers by URL path, served to the pack while the kit runs it (no real network). */
    fixtures?: Record<string, unknown>;
  };
};

/** Declares a pack with its config type inferred from `configFields`: no casts in pack code. */
export function definePack<const Fs extends readonly ConfigField[]>(pack: ToolPack<Fs>): ToolPack {
  return pack as unknown as ToolPack;
}

export { getJson, postJson, ToolWorldError } from "../security/fetch";
