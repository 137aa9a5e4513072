import "server-only";

// The channel jobs' names and payloads, apart from their handlers so the webhook can enqueue without
// importing the turn. The send job is the outbox's (src/lib/outbox).

export const CHANNEL_INBOUND_QUEUE = "channel-inbound";

/** Answer a person's pending messages, oldest first. Carries the contact's hash, never their number. */
export type InboundJob = { tenantId: string; connectionId: string; contact: string };

/** The id prefix of a starter's reply button: the rest of the id is the starter itself. */
export const STARTER_ID = "starter:";
