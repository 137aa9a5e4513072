"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

// The Channels page's forms. Secret inputs are write-only: they start empty, a field left empty keeps the
// stored value, and what was typed is never sent back.

const secretHelp = (set: boolean) => (set ? "Saved. Leave empty to keep it." : undefined);

export function WhatsAppForm({
  action,
  phoneNumberId,
  secretsSet,
}: {
  action: PlainActionFn;
  phoneNumberId: string | null;
  secretsSet: string[];
}) {
  const [state, formAction] = useActionState(action, {});
  const has = (f: string) => secretsSet.includes(f);
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <details className="text-sm">
        <summary className="cursor-pointer font-medium">Where to find these four values at Meta</summary>
        <ol className="mt-2 list-decimal space-y-1 pl-5">
          <li>
            Phone number id: in your app at developers.facebook.com, WhatsApp → API Setup, the id shown under
            your number.
          </li>
          <li>
            Access token: business.facebook.com → Business settings → System users, add a system user, assign
            it your app and WhatsApp account, then Generate token with whatsapp_business_messaging (it does
            not expire, unlike the temporary token on API Setup).
          </li>
          <li>App secret: your app's App settings → Basic, App secret (Show).</li>
          <li>
            Verify token: any phrase you make up. After saving here, open WhatsApp → Configuration at Meta,
            paste the callback URL this page shows and the same phrase, then subscribe to the messages field.
          </li>
        </ol>
      </details>
      <InputField
        id="wa-phone"
        name="phoneNumberId"
        label="Phone number id"
        required
        autoComplete="off"
        help="Meta → WhatsApp → API Setup: the id under your number (not the number itself)."
        defaultValue={state.values?.phoneNumberId ?? phoneNumberId ?? ""}
        error={state.fieldErrors?.phoneNumberId}
      />
      <InputField
        id="wa-token"
        name="accessToken"
        type="password"
        label="Access token"
        autoComplete="off"
        help={
          secretHelp(has("accessToken")) ??
          "A permanent token of a system user with whatsapp_business_messaging."
        }
        error={state.fieldErrors?.accessToken}
      />
      <InputField
        id="wa-app-secret"
        name="appSecret"
        type="password"
        label="App secret"
        autoComplete="off"
        help={
          secretHelp(has("appSecret")) ?? "Meta → App settings → Basic. Every delivery is checked against it."
        }
        error={state.fieldErrors?.appSecret}
      />
      <InputField
        id="wa-verify"
        name="verifyToken"
        type="password"
        label="Verify token"
        autoComplete="off"
        help={secretHelp(has("verifyToken")) ?? "Any phrase you choose; type the same one at Meta."}
        error={state.fieldErrors?.verifyToken}
      />
      <SubmitButton pendingText="Saving…">Save WhatsApp</SubmitButton>
    </form>
  );
}

export function TelegramForm({ action, connected }: { action: PlainActionFn; connected: boolean }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <InputField
        id="tg-token"
        name="botToken"
        type="password"
        label="Bot token"
        required
        autoComplete="off"
        help={
          connected
            ? "Saved. Paste it again (or a new one) to reconnect."
            : "BotFather sends it when you create the bot (/newbot)."
        }
        error={state.fieldErrors?.botToken}
      />
      <SubmitButton pendingText="Connecting…">
        {connected ? "Reconnect Telegram" : "Connect Telegram"}
      </SubmitButton>
    </form>
  );
}

/** A button posting the channel's name (check, disconnect), with its outcome and report beside it. */
export function ChannelButton({
  action,
  channel,
  label,
  pendingText,
  variant,
}: {
  action: PlainActionFn;
  channel: string;
  label: string;
  pendingText: string;
  variant?: "secondary" | "danger";
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name="channel" value={channel} />
      <SubmitButton variant={variant ?? "secondary"} pendingText={pendingText}>
        {label}
      </SubmitButton>
      <FormMessage state={state} />
      {state.data?.report ? (
        <pre className="card overflow-x-auto whitespace-pre-wrap text-sm">{state.data.report}</pre>
      ) : null}
    </form>
  );
}
