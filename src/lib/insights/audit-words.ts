import "server-only";
import { formatDateTime } from "@/shared/dates";
import { isUuid } from "@/shared/parse";
import { ALL_PACKS } from "../tools/index";

// The audit log in words: every action the platform records has a label (tests/unit/audit-words.test.ts
// finds each action written in src/lib and fails on one without), and a target is named, not shown as an id.

export const ACTION_LABELS: Record<string, string> = {
  "tenant.created": "Business created",
  "tenant.suspended": "Business suspended",
  "tenant.resumed": "Business resumed",
  "tenant.limits_changed": "Budget and limits changed",
  "tenant.time_zone_changed": "Time zone changed",
  "member.added": "Member added",
  "member.role_changed": "Role changed",
  "member.removed": "Member removed",
  "invitation.created": "Invitation sent",
  "invitation.revoked": "Invitation revoked",
  "invitation.resent": "Invitation sent again",
  "pack.enabled": "Tool pack turned on",
  "pack.disabled": "Tool pack turned off",
  "pack.config_saved": "Tool pack settings saved",
  "action.proposed": "Action shown to a visitor to confirm",
  "action.confirmed": "Action confirmed by the visitor",
  "action.declined": "Action declined by the visitor",
  "action.expired": "Action expired without the visitor's answer",
  "bot.settings_saved": "Bot settings saved",
  "site.domains_changed": "Site domains changed",
  "visitor_identity.secret_created": "Visitor identity secret created",
  "visitor_identity.secret_rotated": "Visitor identity secret replaced",
  "visitor_identity.secret_removed": "Visitor identity secret removed",
  "visitor_identity.required_changed": "Verified visitor requirement changed",
  "conversations.exported": "Conversations exported",
  "conversation.deleted": "Conversation deleted",
  "visitor.exported": "A visitor's data exported",
  "visitor.erased": "A visitor's data erased",
  "leads.exported": "Inbox exported",
  "lead.handled": "Request marked handled",
  "lead.reopened": "Request reopened",
  "unanswered.handled": "Unanswered questions marked handled",
  "retention.updated": "Retention changed",
  "retention.purged": "Old conversations deleted",
  "retention.kinds_updated": "Retention of contact requests and notes changed",
  "retention.kinds_purged": "Old contact requests and notes deleted",
  "webhook.endpoint_created": "Webhook endpoint added",
  "webhook.endpoint_updated": "Webhook endpoint changed",
  "webhook.endpoint_deleted": "Webhook endpoint deleted",
  "webhook.endpoint_enabled": "Webhook endpoint switched on",
  "webhook.endpoint_switched_off": "Webhook endpoint switched off",
  "webhook.endpoint_disabled": "Webhook endpoint switched off by the platform",
  "webhook.secret_rolled": "Webhook signing secret replaced",
  "webhook.redelivered": "Webhook delivery sent again",
  "webhook.test_sent": "Webhook test event sent",
  "knowledge.sync_started": "Website re-sync started",
  "knowledge.page_excluded": "Website page excluded",
  "knowledge.page_included": "Website page included again",
  "knowledge.answer_added": "Curated answer added",
  "test_question.added": "Test question added",
  "test_question.updated": "Test question changed",
  "test_question.deleted": "Test question deleted",
  "test_question.seeded": "Test questions added in one click",
  "test_question.imported": "Test questions imported",
  "test_run.requested": "Test run started",
  "knowledge.answer_deleted": "Curated answer deleted",
  "knowledge.answer_updated": "Curated answer changed",
  "knowledge.document_uploaded": "Document uploaded",
  "knowledge.document_deleted": "Document deleted",
  "tenant.knowledge_limits_changed": "Knowledge limits changed",
  "channel.connected": "Channel connected or changed",
  "channel.disconnected": "Channel disconnected",
  "live.requested": "Visitor asked for a person",
  "live.claimed": "Live chat taken",
  "live.assigned": "Live chat assigned to a teammate",
  "live.transferred": "Live chat passed to a teammate",
  "live.replied": "Replied in a live chat",
  "live.noted": "Internal note added",
  "live.handed_back": "Live chat handed back to the bot",
  "live.closed": "Live chat closed",
  "live.away": "Set themselves away",
  "live.available": "Set themselves available",
  "live.settings_changed": "Live chat settings changed",
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action.replaceAll("_", " ").replace(".", ": ");
}

/**
 * The entry's target in words: a tool by its name, an id by what the entry's details say it was (an address,
 * an e-mail, a page), else a short reference rather than a whole uuid.
 */
export function targetLabel(target: string | null, details: Record<string, unknown>): string {
  if (!target) return "";
  const pack = ALL_PACKS.find((p) => p.id === target);
  if (pack) return pack.name ?? pack.label;
  if (!isUuid(target)) return target;
  for (const key of ["url", "email", "name", "title"]) {
    const v = details[key];
    if (typeof v === "string" && v) return v;
  }
  return `#${target.slice(0, 8)}`;
}

// Detail keys as written by the use cases, in words. A key without a label is split into words ("fileName" →
// "file name"), so a new detail still reads as a phrase rather than as code.
const DETAIL_LABELS: Record<string, string> = {
  expiresAt: "expires",
  takenFrom: "taken from",
  via: "through",
  by: "by",
  phoneNumberId: "phone number id",
  secretsChanged: "secrets changed",
  conversationId: "conversation",
  monthlyTokenBudget: "monthly token budget",
  rateLimits: "rate limits",
  visitorPerMin: "per visitor a minute",
  ipPerMin: "per address a minute",
  tenantPerMin: "per business a minute",
  maxStreams: "answers at once",
  uploadQuotaMb: "upload quota (MB)",
  pageCap: "page limit",
  retentionDays: "kept for (days)",
  leadDays: "contact requests kept for (days)",
  noteDays: "notes kept for (days)",
  maxPerAgent: "chats per person",
  escalateAfterMin: "escalate after (minutes)",
  hours: "opening hours set",
  required: "verified visitors required",
  bytes: "size (bytes)",
};

export function detailLabel(key: string): string {
  return (
    DETAIL_LABELS[key] ??
    key
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replaceAll("_", " ")
      .toLowerCase()
  );
}

/** How an entry's details are read: people by name, times in the business's zone. */
export type DetailContext = { people: ReadonlyMap<string, string>; tz: string };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

export function detailValue(value: unknown, c: DetailContext): string {
  if (value === null || value === undefined) return "not set";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length ? value.map((v) => detailValue(v, c)).join(", ") : "none";
  if (typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${detailLabel(k)} ${detailValue(v, c)}`)
      .join(", ");
  if (typeof value !== "string") return String(value);
  // A person's id names that person while they are a member; any other id is a short reference.
  if (isUuid(value)) return c.people.get(value) ?? `#${value.slice(0, 8)}`;
  if (ISO_TIME.test(value)) return formatDateTime(value, { tz: c.tz }) || value;
  return value;
}

/** The details of an entry as label/value lines, in the order they were recorded. */
export function detailLines(details: Record<string, unknown>, c: DetailContext) {
  return Object.entries(details).map(([key, v]) => ({
    key,
    label: detailLabel(key),
    text: detailValue(v, c),
  }));
}
