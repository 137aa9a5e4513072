import "server-only";
import { AppError } from "../errors";
import type { ChannelAdapter } from "./adapter-types";
import { telegram } from "./telegram/adapter";
import { whatsapp } from "./whatsapp/adapter";

// The channels, as the packs' ALL_PACKS: one table of adapters, looked up by the connection's channel. Adding
// a channel is a folder that assembles its adapter and a line here; the webhook, the answering job, the
// sender and the Channels page ask the table, never which channel it is.

export const CHANNEL_ADAPTERS = new Map<string, ChannelAdapter>(
  [whatsapp, telegram].map((a) => [a.channel, a]),
);

export function adapterFor(channel: string): ChannelAdapter {
  const adapter = CHANNEL_ADAPTERS.get(channel);
  if (!adapter) throw new AppError("not_found", "This channel is not known.");
  return adapter;
}
