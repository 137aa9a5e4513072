import "server-only";
import type { VisitorExport } from "./types";

// The export as a page a visitor can read: their conversations in order (with the sources each answer cited
// and the tools it used), then every other kind of record as plain fields. Everything stored is text a visitor
// or a model wrote, so every value is escaped, and the page is served with a CSP that runs no script at all.

/** What each table is called on the page and on the admin's Visitor data page. */
export const KIND_LABELS: Record<string, string> = {
  conversations: "Conversations",
  messages: "Messages",
  tool_runs: "Tool traces",
  pending_tool_calls: "Actions proposed to the visitor",
  message_feedback: "Ratings",
  live_events: "Live chat events and internal notes",
  leads: "Contact requests",
  channel_contacts: "Messaging contacts (WhatsApp, Telegram)",
  channel_inbound: "Messages received on WhatsApp or Telegram",
  channel_outbound: "Messages sent on WhatsApp or Telegram",
  unanswered_handled: "Questions marked handled",
  webhook_deliveries: "Copies sent to the business's webhooks",
};

const ROLE: Record<string, string> = { user: "Visitor", assistant: "Assistant", agent: "Team member" };

export function esc(v: unknown): string {
  const s = typeof v === "string" ? v : v instanceof Date ? v.toISOString() : JSON.stringify(v ?? "");
  return s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

type Row = Record<string, unknown>;
const byKey = (rows: Row[] | undefined, key: string) => {
  const m = new Map<string, Row[]>();
  for (const r of rows ?? []) {
    const k = String(r[key] ?? "");
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  return m;
};

function fields(r: Row): string {
  const items = Object.entries(r)
    .filter(([k, v]) => k !== "tenant_id" && v !== null && v !== "")
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`);
  return `<dl>${items.join("")}</dl>`;
}

function messageHtml(m: Row, d: VisitorExport, runs: Row[], rating: Row | undefined): string {
  const cited = d.citations[String(m.id)] ?? [];
  const sources = cited.length
    ? `<p class="meta">Sources: ${cited.map((c) => `[${c.n}] ${esc(c.title)}${c.url ? ` (${esc(c.url)})` : ""}`).join("; ")}</p>`
    : "";
  const tools = runs
    .map(
      (r) =>
        `<details><summary>Tool ${esc(r.pack_id)} (${esc(r.outcome)})</summary><pre>${esc(r.args)}</pre><pre>${esc(r.result)}</pre></details>`,
    )
    .join("");
  const rated = rating
    ? `<p class="meta">Rated ${esc(rating.rating)}${rating.comment ? `: ${esc(rating.comment)}` : ""}</p>`
    : "";
  return `<li><p class="meta">${esc(m.created_at)} · ${esc(ROLE[String(m.role)] ?? m.role)}</p><p class="text">${esc(m.content)}</p>${sources}${tools}${rated}</li>`;
}

function conversationsHtml(d: VisitorExport): string {
  const msgs = byKey(d.tables.messages, "conversation_id");
  const runs = byKey(d.tables.tool_runs, "message_id");
  const ratings = byKey(d.tables.message_feedback, "message_id");
  return (d.tables.conversations ?? [])
    .map((c) => {
      const list = (msgs.get(String(c.id)) ?? [])
        .map((m) => messageHtml(m, d, runs.get(String(m.id)) ?? [], ratings.get(String(m.id))?.[0]))
        .join("");
      return `<section><h3>Conversation of ${esc(c.started_at)}</h3>${fields(c)}<ol>${list}</ol></section>`;
    })
    .join("");
}

const INLINE = new Set(["conversations", "messages", "tool_runs", "message_feedback"]);

export function renderVisitorHtml(d: VisitorExport): string {
  const summary = Object.entries(d.counts)
    .map(([t, n]) => `<tr><th scope="row">${esc(KIND_LABELS[t] ?? t)}</th><td>${n}</td></tr>`)
    .join("");
  const others = Object.entries(d.tables)
    .filter(([t, rows]) => !INLINE.has(t) && rows.length > 0)
    .map(([t, rows]) => `<h2>${esc(KIND_LABELS[t] ?? t)}</h2>${rows.map((r) => fields(r)).join("<hr>")}`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your data at ${esc(d.business.name)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.meta{color:#555;font-size:13px;margin:0}.text{white-space:pre-wrap;margin:.2rem 0 .8rem}
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem;font-size:12px}dt{font-weight:600}dd{margin:0 0 .4rem 1rem;white-space:pre-wrap}
table{border-collapse:collapse}th,td{text-align:left;padding:.2rem .8rem .2rem 0}</style></head>
<body><h1>Your data at ${esc(d.business.name)}</h1>
<p>Everything ${esc(d.business.name)} holds about you in its chat assistant, as of ${esc(d.exportedAt)}.</p>
<table><caption class="meta">What was found</caption>${summary}</table>
<h2>Conversations</h2>${conversationsHtml(d) || "<p>None.</p>"}${others}</body></html>`;
}
