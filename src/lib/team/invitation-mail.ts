import "server-only";
import type { Role } from "../db/schema";

// The words of the invitation mail. Plain text first (every mail client shows it); the HTML part says the
// same with a button-like link. Names come from people's own input, so the HTML escapes them.

const ROLE_WORDS: Record<Role, string> = {
  owner: "an owner (everything, including the team)",
  admin: "an admin (everything but the team)",
  viewer: "a viewer (reads only)",
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function invitationMail(p: {
  business: string;
  inviter: string;
  role: Role;
  link: string;
  days: number;
}) {
  // Subjects are one line: a name with a line break in it must not break the header.
  const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
  const subject = `${oneLine(p.inviter)} invited you to ${oneLine(p.business)} on michi-chat`.slice(0, 200);
  const text = [
    `${p.inviter} invited you to join ${p.business} on michi-chat as ${ROLE_WORDS[p.role]}.`,
    "",
    "Open this link to accept. You sign in first, or create an account if you have none:",
    p.link,
    "",
    `The link works once and expires in ${p.days} days. If you did not expect this, ignore this mail.`,
  ].join("\n");
  const html = `<p>${esc(p.inviter)} invited you to join <strong>${esc(p.business)}</strong> on michi-chat as ${esc(ROLE_WORDS[p.role])}.</p>
<p><a href="${esc(p.link)}">Accept the invitation</a></p>
<p>You sign in first, or create an account if you have none. The link works once and expires in ${p.days} days. If you did not expect this, ignore this mail.</p>`;
  return { subject, text, html };
}
