export const metadata = { title: "Sign in" };

// Placeholder until the Tenant admin work adds credentials sign-in.
export default function SignInPage() {
  return (
    <main className="mx-auto max-w-sm px-6 py-16">
      <h1 className="text-2xl font-bold">Sign in to michi-chat</h1>
      <form className="card mt-6 space-y-4">
        <div>
          <label className="label" htmlFor="email">
            E-mail
          </label>
          <input className="input" id="email" name="email" type="email" autoComplete="email" required />
        </div>
        <div>
          <label className="label" htmlFor="password">
            Password
          </label>
          <input
            className="input"
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </div>
        <button className="btn w-full justify-center" type="submit">
          Sign in
        </button>
      </form>
    </main>
  );
}
