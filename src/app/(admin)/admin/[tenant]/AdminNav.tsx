"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const SECTIONS = [
  { path: "", label: "Overview" },
  { path: "/tools", label: "Tools" },
  { path: "/knowledge", label: "Knowledge" },
  { path: "/tests", label: "Test questions" },
  { path: "/bot", label: "Bot" },
  { path: "/embed", label: "Site & embed" },
  { path: "/conversations", label: "Conversations" },
  { path: "/inbox", label: "Inbox" },
  { path: "/unanswered", label: "Unanswered" },
  { path: "/usage", label: "Usage" },
  { path: "/channels", label: "Channels" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/settings", label: "Data & retention" },
  { path: "/privacy", label: "Visitor data" },
  { path: "/team", label: "Team" },
  { path: "/audit", label: "Audit log" },
  { path: "/account", label: "Account" },
] as const;

/** Section links; the current one is marked with aria-current for screen readers and styled from that. */
export function AdminNav({ base }: { base: string }) {
  const pathname = usePathname();
  return (
    <ul className="flex flex-wrap gap-1 md:flex-col">
      {SECTIONS.map((s) => {
        const href = `${base}${s.path}`;
        const current =
          s.path === "" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
        return (
          <li key={s.label}>
            <Link
              href={href}
              aria-current={current ? "page" : undefined}
              className="block rounded-lg px-3 py-2 text-sm font-medium hover:bg-[var(--surface)] aria-[current=page]:bg-brand-700 aria-[current=page]:text-white"
            >
              {s.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
