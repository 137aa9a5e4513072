"use client";

import { useCopy } from "./useCopy";

/**
 * A password shown exactly once, after creating a business for someone while mail is off (with mail on the
 * owner gets an invitation link instead), with a button to copy it.
 */
export function OneTimePassword({ email, password }: { email?: string; password?: string }) {
  if (!password) return null;
  return <Shown email={email} password={password} />;
}

function Shown({ email, password }: { email?: string; password: string }) {
  const { status, copy } = useCopy(password, "password");
  return (
    <div className="rounded-lg border border-[var(--border)] p-3">
      <p className="text-sm">
        One-time password for <strong>{email}</strong>:
      </p>
      <output className="mt-1 block select-all font-mono text-lg" aria-label="One-time password">
        {password}
      </output>
      <div className="mt-2 flex items-center gap-3">
        <button type="button" className="btn btn-secondary" onClick={copy}>
          Copy password
        </button>
        <span role="status" aria-live="polite" className="text-sm">
          {status}
        </span>
      </div>
    </div>
  );
}
