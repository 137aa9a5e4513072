"use client";

import { useActionState } from "react";
import { Field, FormMessage, SubmitButton } from "@/components/ui";
import { MemberAvatar } from "@/components/ui/MemberAvatar";
import type { PlainActionFn } from "@/lib/auth/action";

// The person's profile photo: shown to visitors beside their name when they join a live conversation, and
// to their team in the console. The server checks the file by its bytes; `accept` only helps the picker.

export function PhotoForms({
  upload,
  remove,
  name,
  src,
}: {
  upload: PlainActionFn;
  remove: PlainActionFn;
  name: string;
  src: string | null;
}) {
  const [state, uploadAction] = useActionState(upload, {});
  const [removed, removeAction] = useActionState(remove, {});
  return (
    <div className="space-y-4">
      <div className="flex items-center gap-4">
        <MemberAvatar name={name} src={src} size={64} />
        <p className="text-sm muted">
          {src ? "Your current photo." : "No photo yet: people see your initial."}
        </p>
      </div>
      <form action={uploadAction} className="space-y-4" noValidate>
        <FormMessage state={state} />
        <Field
          id="account-photo"
          label="Photo"
          help="PNG, JPEG or WebP, at most 256 KB and 2048 × 2048 pixels."
          error={state.fieldErrors?.photo}
        >
          {(control) => (
            <input
              {...control}
              name="photo"
              type="file"
              accept="image/png,image/jpeg,image/webp"
              className="input"
            />
          )}
        </Field>
        <SubmitButton pendingText="Uploading…">Save photo</SubmitButton>
      </form>
      {/* Outside the form: once the photo is gone the form goes too, and its answer must still show. */}
      <FormMessage state={removed} />
      {src ? (
        <form action={removeAction}>
          <SubmitButton variant="secondary" pendingText="Removing…">
            Remove photo
          </SubmitButton>
        </form>
      ) : null}
    </div>
  );
}
