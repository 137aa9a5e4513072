import { headers } from "next/headers";
import Link from "next/link";
import { connection } from "next/server";
import { env } from "@/lib/env";
import { FRONT_DOOR_WORDS, frontDoorLang } from "@/shared/front-door-words";

// The front door: what the product does, in the visitor's language, and only the doors this installation
// has open (sign-up and the demo are each the operator's choice, read per request, never at build time).
export default async function Home() {
  await connection();
  const lang = frontDoorLang((await headers()).get("accept-language"));
  const w = FRONT_DOOR_WORDS[lang];
  const e = env();
  return (
    <main id="main" lang={lang} className="mx-auto max-w-3xl px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-brand-700 dark:text-brand-500">
        michi-chat
      </p>
      <h1 className="mt-2 text-4xl font-bold">{w.tagline}</h1>
      <p className="mt-4 text-lg muted">{w.intro}</p>
      <ul className="mt-8 grid gap-4 sm:grid-cols-2">
        {w.features.map((f) => (
          <li key={f.title} className="card">
            <h2 className="font-semibold">{f.title}</h2>
            <p className="mt-1 text-sm muted">{f.text}</p>
          </li>
        ))}
      </ul>
      <div className="mt-10 flex flex-wrap gap-3">
        {e.MICHI_ALLOW_SIGNUP ? (
          <Link className="btn" href="/signup">
            {w.signUp}
          </Link>
        ) : null}
        <Link className={e.MICHI_ALLOW_SIGNUP ? "btn btn-secondary" : "btn"} href="/admin">
          {w.signIn}
        </Link>
        {e.MICHI_DEMO ? (
          <Link className="btn btn-secondary" href="/demo">
            {w.demo}
          </Link>
        ) : null}
      </div>
    </main>
  );
}
