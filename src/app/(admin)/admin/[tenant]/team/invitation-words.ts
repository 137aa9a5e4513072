import type { MailStatus } from "@/lib/db/schema";

// What the owner is told after inviting someone, by what became of the mail.
export function invitationSentence(email: string, role: string, mail: MailStatus): string {
  switch (mail) {
    case "sent":
      return `Invitation sent to ${email} as ${role}. You can also give them the link below yourself.`;
    case "kept":
      return `Invitation for ${email} as ${role} created. No mail server is configured, so the mail waits in the operator's Outbox: give them the link below yourself.`;
    case "off":
      return `Invitation for ${email} as ${role} created. Mail is off on this installation: give them the link below yourself.`;
    default:
      return `Invitation for ${email} as ${role} created, but the mail could not be sent: give them the link below yourself.`;
  }
}
