import Link from "next/link";

export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">michi-chat</p>
      <h1 className="mt-2 text-4xl font-bold">
        A chat assistant that knows today&apos;s facts about your business
      </h1>
      <p className="mt-4 text-lg muted">
        Visitors ask on your site; the assistant checks live facts such as your opening hours, menu or stock
        through tool packs you switch on and fill in, and answers in a widget that weighs a few kilobytes.
      </p>
      <ul className="mt-8 grid gap-4 sm:grid-cols-3">
        <li className="card">
          <h2 className="font-semibold">Safe tools</h2>
          <p className="mt-1 text-sm muted">
            Packs only reach the URLs you configure, over https, with results trimmed to a few fields.
          </p>
        </li>
        <li className="card">
          <h2 className="font-semibold">A tiny widget</h2>
          <p className="mt-1 text-sm muted">
            One script tag; the chat panel loads only when a visitor opens it.
          </p>
        </li>
        <li className="card">
          <h2 className="font-semibold">Honest costs</h2>
          <p className="mt-1 text-sm muted">A monthly token budget per business, and usage you can read.</p>
        </li>
      </ul>
      <div className="mt-10 flex gap-3">
        <Link className="btn" href="/admin">
          Sign in to the admin
        </Link>
        <Link className="btn btn-secondary" href="/demo">
          Try the demo
        </Link>
      </div>
    </main>
  );
}
