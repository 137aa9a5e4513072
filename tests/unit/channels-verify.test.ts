import { describe, expect, it } from "vitest";
import { verifyTelegramSecret } from "@/lib/channels/telegram/verify";
import { verifyWhatsAppHandshake, verifyWhatsAppSignature } from "@/lib/channels/whatsapp/verify";
import { handshakeQuery, rawBody, signature, textMessage } from "../fixtures/channels/whatsapp/webhooks";

// What stands between a forged request and a tenant's conversations: Meta's signature over the raw bytes,
// the handshake's verify token (no signature there), Telegram's secret header.

const APP_SECRET = "6f1c2e9a4b7d8e0f1a2b3c4d5e6f7a8b";

describe("verifyWhatsAppSignature", () => {
  it("accepts Meta's sha256= HMAC of the exact bytes", async () => {
    const raw = rawBody(textMessage("Hola, ¿abren hoy? 🌮"));
    expect(verifyWhatsAppSignature(raw, await signature(raw, APP_SECRET), APP_SECRET)).toBe(true);
  });

  it("accepts the hex in upper case and surrounding spaces, as header values may arrive", async () => {
    const raw = rawBody(textMessage("hi"));
    const sig = await signature(raw, APP_SECRET);
    expect(verifyWhatsAppSignature(raw, ` sha256=${sig.slice(7).toUpperCase()} `, APP_SECRET)).toBe(true);
  });

  it("refuses the same JSON re-serialised: the HMAC is over the bytes as sent", async () => {
    // Meta escapes non-ASCII as \uXXXX in some deliveries; a parse-and-stringify round trip changes the bytes.
    const sent = new TextEncoder().encode('{"text":"caf\\u00e9"}');
    const sig = await signature(sent, APP_SECRET);
    const reserialised = new TextEncoder().encode(JSON.stringify(JSON.parse('{"text":"caf\\u00e9"}')));
    expect(verifyWhatsAppSignature(sent, sig, APP_SECRET)).toBe(true);
    expect(verifyWhatsAppSignature(reserialised, sig, APP_SECRET)).toBe(false);
  });

  it("refuses a changed body, another app's secret, a missing or malformed header", async () => {
    const raw = rawBody(textMessage("pay 10"));
    const sig = await signature(raw, APP_SECRET);
    expect(verifyWhatsAppSignature(rawBody(textMessage("pay 99")), sig, APP_SECRET)).toBe(false);
    expect(verifyWhatsAppSignature(raw, await signature(raw, "another-app-secret"), APP_SECRET)).toBe(false);
    expect(verifyWhatsAppSignature(raw, null, APP_SECRET)).toBe(false);
    expect(verifyWhatsAppSignature(raw, "", APP_SECRET)).toBe(false);
    expect(verifyWhatsAppSignature(raw, sig.slice(7), APP_SECRET)).toBe(false); // no sha256= prefix
    expect(verifyWhatsAppSignature(raw, `sha1=${sig.slice(7)}`, APP_SECRET)).toBe(false); // the old X-Hub-Signature
    expect(verifyWhatsAppSignature(raw, sig.slice(0, -2), APP_SECRET)).toBe(false); // truncated
    expect(verifyWhatsAppSignature(raw, `${sig}00`, APP_SECRET)).toBe(false);
  });

  it("refuses everything when no app secret is configured, even a signature made with the empty key", async () => {
    const raw = rawBody(textMessage("hi"));
    expect(verifyWhatsAppSignature(raw, await signature(raw, ""), "")).toBe(false);
  });
});

describe("verifyWhatsAppHandshake", () => {
  it("echoes hub.challenge when the verify token matches, with no signature asked for", () => {
    expect(verifyWhatsAppHandshake(handshakeQuery("my-verify-token", "1158201444"), "my-verify-token")).toBe(
      "1158201444",
    );
  });

  it("refuses a wrong or missing token, another mode, a missing challenge", () => {
    expect(verifyWhatsAppHandshake(handshakeQuery("guess"), "my-verify-token")).toBeNull();
    expect(verifyWhatsAppHandshake(handshakeQuery("my-verify-token-longer"), "my-verify-token")).toBeNull();
    expect(
      verifyWhatsAppHandshake(new URLSearchParams({ "hub.mode": "subscribe", "hub.challenge": "1" }), "t"),
    ).toBeNull();
    expect(verifyWhatsAppHandshake(handshakeQuery("t", "1", "unsubscribe"), "t")).toBeNull();
    expect(
      verifyWhatsAppHandshake(new URLSearchParams({ "hub.mode": "subscribe", "hub.verify_token": "t" }), "t"),
    ).toBeNull();
  });

  it("never matches an empty configured token", () => {
    expect(verifyWhatsAppHandshake(handshakeQuery(""), "")).toBeNull();
  });
});

describe("verifyTelegramSecret", () => {
  it("accepts exactly the secret_token given to setWebhook", () => {
    expect(verifyTelegramSecret("k3y_Of-the-bot", "k3y_Of-the-bot")).toBe(true);
  });

  it("refuses a missing header, a different or differently cased secret, a prefix", () => {
    expect(verifyTelegramSecret(null, "k3y")).toBe(false);
    expect(verifyTelegramSecret("", "k3y")).toBe(false);
    expect(verifyTelegramSecret("K3Y", "k3y")).toBe(false);
    expect(verifyTelegramSecret("k3", "k3y")).toBe(false);
    expect(verifyTelegramSecret("k3y", "")).toBe(false);
  });
});
