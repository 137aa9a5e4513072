import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { FRONT_DOOR_WORDS, frontDoorLang } from "@/shared/front-door-words";

export const metadata: Metadata = { title: "Not found" };

// Every address nothing answers, and every notFound() of a page: the app's look, the reader's language, a
// way home. The status stays 404.
export default async function NotFound() {
  const lang = frontDoorLang((await headers()).get("accept-language"));
  const w = FRONT_DOOR_WORDS[lang];
  return (
    <main id="main" lang={lang} className="mx-auto max-w-xl px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-brand-700 dark:text-brand-500">
        michi-chat · 404
      </p>
      <div className="card mt-4">
        <h1 className="text-2xl font-bold">{w.notFoundTitle}</h1>
        <p className="mt-2 muted">{w.notFoundText}</p>
        <p className="mt-6">
          <Link className="btn" href="/">
            {w.home}
          </Link>
        </p>
      </div>
    </main>
  );
}
