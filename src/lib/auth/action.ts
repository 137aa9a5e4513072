import "server-only";
import { unstable_rethrow } from "next/navigation";
import type { ZodType } from "zod";
import { AppError, isAppError } from "../errors";
import { log } from "../log";
import { noteAction } from "../request-context";
import {
  NOT_A_MEMBER,
  OPERATOR_ONLY,
  type OperatorContext,
  type Role,
  resolveTenantAccess,
  roleRefusal,
  sessionUser,
  type TenantContext,
} from "./access";
import { redirectToSignIn } from "./redirect";

// Server actions for forms used with React 19 `useActionState`. Each action resolves its caller first, then
// validates the FormData with zod, then runs; whatever goes wrong comes back as state the form can show,
// with the values the person typed so nothing is lost.

export type ActionState = {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
  /** What was typed, keyed by input name, so inputs can use it as their defaultValue after a failure. */
  values?: Record<string, string>;
  /** Extra output to show once (e.g. a one-time password). Never put it in `values`. */
  data?: Record<string, string>;
};

/** What an action body may return: nothing (plain success) or state to merge over `{ ok: true }`. */
export type ActionResult = ActionState | undefined;

export type ActionOptions = {
  /** Which typed values may be sent back to the browser. Default: all but passwords, secrets and tokens. */
  echo?: (name: string) => boolean;
};

// Anything naming a password or secret, or ending in "token" (but not e.g. "monthlyTokenBudget").
const SENSITIVE = /password|passwd|secret|token$/i;
const defaultEcho = (name: string) => !SENSITIVE.test(name);

/** FormData as a plain object: repeated names become arrays; Next's own `$ACTION_*` fields and files are dropped. */
export function formToObject(fd: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of fd.entries()) {
    if (name.startsWith("$ACTION") || typeof value !== "string") continue;
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else out[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

export function echoValues(fd: FormData, echo = defaultEcho): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(formToObject(fd))) {
    if (echo(name)) values[name] = Array.isArray(value) ? value.join("\n") : value;
  }
  return values;
}

/** Validates FormData; on failure returns the state to show (one message per field, first issue wins). */
export function parseForm<T>(
  schema: ZodType<T>,
  fd: FormData,
  echo = defaultEcho,
): { ok: true; data: T } | { ok: false; state: ActionState } {
  const parsed = schema.safeParse(formToObject(fd));
  if (parsed.success) return { ok: true, data: parsed.data };
  const fieldErrors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join(".") || "_form";
    fieldErrors[key] ??= issue.message;
  }
  return {
    ok: false,
    state: {
      ok: false,
      message: "Please correct the highlighted fields.",
      fieldErrors,
      values: echoValues(fd, echo),
    },
  };
}

/**
 * The arguments of a form action as our pages send them (a slug where one is bound, then the previous state
 * and the form), or a refusal: a replayed or hand-made call may send anything in their place, and that is the
 * caller's mistake (400 through scripts/serve.mjs), not a failure of ours.
 */
export function checkActionArgs(
  formData: unknown,
  bound: { slug: unknown } | null = null,
): asserts formData is FormData {
  const badSlug = bound !== null && (typeof bound.slug !== "string" || bound.slug.length > 100);
  const malformed = badSlug || !(formData instanceof FormData);
  noteAction(malformed);
  if (malformed) throw new AppError("invalid_input", "This request could not be read.");
}

async function run<C, T>(
  ctx: C,
  input: T,
  fd: FormData,
  fn: (ctx: C, input: T, fd: FormData) => Promise<ActionResult>,
  echo: (name: string) => boolean,
): Promise<ActionState> {
  try {
    const result = (await fn(ctx, input, fd)) ?? {};
    return { ok: true, values: echoValues(fd, echo), ...result };
  } catch (e) {
    unstable_rethrow(e); // redirect() and notFound() are control flow, not failures
    if (isAppError(e)) {
      const fieldErrors = e.details?.fieldErrors
        ? Object.fromEntries(
            Object.entries(e.details.fieldErrors).map(([k, v]) => [
              k,
              Array.isArray(v) ? String(v[0]) : String(v),
            ]),
          )
        : undefined;
      return { ok: false, message: e.message, fieldErrors, values: echoValues(fd, echo) };
    }
    log().error({ err: e }, "server action failed");
    return {
      ok: false,
      message: "Something went wrong on our side. Please try again.",
      values: echoValues(fd, echo),
    };
  }
}

export type TenantActionFn = (
  slug: string,
  prevState: ActionState,
  formData: FormData,
) => Promise<ActionState>;

/**
 * A server action scoped to the tenant whose slug the page binds (`action.bind(null, slug)`); the slug is
 * never read from the form. Non-members get the same refusal as an unknown slug; a too-low role is refused
 * with a plain message. Nothing runs before the caller is known.
 */
export function tenantAction<T>(
  minRole: Role,
  schema: ZodType<T>,
  fn: (ctx: TenantContext, input: T, formData: FormData) => Promise<ActionResult>,
  options: ActionOptions = {},
): TenantActionFn {
  const echo = options.echo ?? defaultEcho;
  return async (slug, _prev, formData) => {
    checkActionArgs(formData, { slug });
    const access = await resolveTenantAccess(slug, minRole);
    if (access.kind === "anonymous") redirectToSignIn(`/admin/${encodeURIComponent(String(slug))}`);
    if (access.kind === "not_found") return { ok: false, message: NOT_A_MEMBER };
    if (access.kind === "forbidden")
      return {
        ok: false,
        message: roleRefusal(access.ctx.role, minRole),
        values: echoValues(formData, echo),
      };
    const parsed = parseForm(schema, formData, echo);
    if (!parsed.ok) return parsed.state;
    return run(access.ctx, parsed.data, formData, fn, echo);
  };
}

export type PlainActionFn = (prevState: ActionState, formData: FormData) => Promise<ActionState>;

/** A server action for the platform operator; anybody else is refused before the form is read. */
export function operatorAction<T>(
  schema: ZodType<T>,
  fn: (ctx: OperatorContext, input: T, formData: FormData) => Promise<ActionResult>,
  options: ActionOptions = {},
): PlainActionFn {
  const echo = options.echo ?? defaultEcho;
  return async (_prev, formData) => {
    checkActionArgs(formData);
    const { user, db } = await sessionUser();
    if (!user) redirectToSignIn("/admin/operator");
    if (!user.isOperator) return { ok: false, message: OPERATOR_ONLY };
    const parsed = parseForm(schema, formData, echo);
    if (!parsed.ok) return parsed.state;
    return run({ user, db }, parsed.data, formData, fn, echo);
  };
}

/** A server action open to anyone (sign-in, sign-up): validation and error handling only. */
export function publicAction<T>(
  schema: ZodType<T>,
  fn: (input: T, formData: FormData) => Promise<ActionResult>,
  options: ActionOptions = {},
): PlainActionFn {
  const echo = options.echo ?? defaultEcho;
  return async (_prev, formData) => {
    checkActionArgs(formData);
    const parsed = parseForm(schema, formData, echo);
    if (!parsed.ok) return parsed.state;
    return run(null, parsed.data, formData, (_c, input, fd) => fn(input, fd), echo);
  };
}
