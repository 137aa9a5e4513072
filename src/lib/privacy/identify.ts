import "server-only";
import { z } from "zod";
import { CHANNEL_ADAPTERS } from "../channels/adapter";
import { channelVisitorId } from "../channels/identity";
import type { TenantTx } from "../db/client";
import {
  channelConnectionIds,
  resolveVisitor,
  type VisitorKeys,
  type VisitorSeed,
} from "../db/queries/visitor-find";
import { AppError } from "../errors";
import { verifiedVisitorId } from "../security/visitor-identity";

// How an owner names the visitor who asked: by the e-mail they gave (a contact request, or the verified
// identity the business's site vouched for), their phone number (a WhatsApp contact, or a contact request),
// the business's own id for a verified visitor, or one of their conversations (its id or its admin link).

export const VISITOR_HANDLES = ["email", "phone", "verified", "conversation"] as const;
export type VisitorHandle = (typeof VISITOR_HANDLES)[number];

export const visitorQuerySchema = z.object({
  by: z.enum(VISITOR_HANDLES, { error: "Choose how to find the visitor." }),
  value: z.string().trim().min(1, "Enter what to look for.").max(500, "At most 500 characters."),
});
export type VisitorQuery = z.infer<typeof visitorQuerySchema>;

const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * A phone number as channels store it: digits only, with the international prefix and without "+" or "00"
 * (WhatsApp's wa_id is "4915112345678"). Spaces, dashes, brackets and a leading + or 00 are dropped.
 */
export function normalisePhone(value: string): string {
  const digits = value.replace(/[^0-9]/g, "");
  return !value.trim().startsWith("+") && digits.startsWith("00") ? digits.slice(2) : digits;
}

function invalid(message: string): AppError {
  return new AppError("invalid_input", message, { fieldErrors: { value: [message] } });
}

/** The handle as the stores hold it; refuses one that cannot name anybody. */
export function seedOf(q: VisitorQuery, tenantId: string): VisitorSeed {
  switch (q.by) {
    case "email": {
      const email = q.value.toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalid("Enter an e-mail address.");
      return { email };
    }
    case "phone": {
      const phoneDigits = normalisePhone(q.value);
      if (phoneDigits.length < 5 || phoneDigits.length > 20) throw invalid("Enter a phone number.");
      return { phoneDigits };
    }
    case "verified":
      return { verifiedId: q.value, visitorIds: [verifiedVisitorId(tenantId, q.value)] };
    case "conversation": {
      const id = q.value.match(UUID_IN)?.[0];
      if (!id) throw invalid("Enter a conversation's id or its link.");
      return { conversationId: id.toLowerCase() };
    }
  }
}

/**
 * Everything the handle leads to, in the caller's tenant transaction. A phone number is hashed the way each of
 * the business's channel connections hashes its contacts (the conversations only ever see that hash).
 */
export async function keysFor(tx: TenantTx, tenantId: string, q: VisitorQuery): Promise<VisitorKeys> {
  const seed = seedOf(q, tenantId);
  if (seed.phoneDigits) {
    const hashes: string[] = [];
    for (const c of await channelConnectionIds(tx, tenantId)) {
      const prefix = CHANNEL_ADAPTERS.get(c.channel)?.visitorPrefix;
      if (prefix) hashes.push(channelVisitorId(prefix, c.id, seed.phoneDigits));
    }
    seed.visitorIds = hashes;
  }
  return resolveVisitor(tx, tenantId, seed);
}

export const foundNothing = (k: VisitorKeys) => k.conversationIds.length === 0 && k.leadIds.length === 0;
