/** A password shown exactly once, after adding someone to a team or creating a business for them. */
export function OneTimePassword({ email, password }: { email?: string; password?: string }) {
  if (!password) return null;
  return (
    <div className="rounded-lg border border-[var(--border)] p-3">
      <p className="text-sm">
        One-time password for <strong>{email}</strong>:
      </p>
      <output className="mt-1 block select-all font-mono text-lg" aria-label="One-time password">
        {password}
      </output>
    </div>
  );
}
