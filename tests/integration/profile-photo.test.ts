import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as adminPhoto } from "@/app/api/admin/[tenant]/avatars/[userId]/route";
import { GET as visitorPhoto } from "@/app/api/widget/[key]/avatars/[token]/route";
import { GET as events } from "@/app/api/widget/[key]/conversations/[id]/events/route";
import { GET as history } from "@/app/api/widget/[key]/conversations/[id]/route";
import { removeProfilePhoto, setProfilePhoto } from "@/lib/accounts/photo";
import type { Role, TenantContext } from "@/lib/auth/access";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, type tenants, userAvatars, users } from "@/lib/db/schema";
import { closeLiveWakes } from "@/lib/live/bus";
import { recordPresence } from "@/lib/live/presence";
import { sendAgentReply } from "@/lib/live/reply";
import { requestPerson } from "@/lib/live/request";
import { claimConversation } from "@/lib/live/takeover";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { actAs } from "../support/admin-mocks";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, PLATFORM, SITE, startChatWorld } from "../support/chat-world";
import {
  jpegWithHiddenMetadata,
  pngWithHiddenMetadata,
  secretsIn,
  webpWithHiddenMetadata,
} from "../support/crafted-images";
import { png } from "../support/images";
import { readLive, visitorConversation } from "../support/live";

// A person's profile photo (issue #28): checked by its bytes on upload, shown to the visitor of a conversation
// the person joined, by an address that names neither the person's user id nor their e-mail and opens for that
// visitor of that business only; the team sees it in the console; removing it (or the account) removes it.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));

type Tenant = typeof tenants.$inferSelect;
type User = Awaited<ReturnType<typeof makeUser>>;
let w: ChatWorld;
let shop: Tenant;
let other: Tenant;
let ana: User;
let vera: User;
let otto: User;
const queue: JobQueue = { sendIn: async () => "job", send: async () => "job", stop: async () => {} };
const photo = png(16, 16);

const ctx = (user: User, tenant: Tenant, role: Role): TenantContext => ({
  user: { ...user, isOperator: false, mustChangePassword: false },
  tenant,
  role,
  db: w.db,
});

beforeAll(async () => {
  w = await startChatWorld();
  setProcessQueue(queue);
  shop = await w.tenant();
  other = await w.tenant();
  ana = await makeUser(w.db, "ana.private@shop.example", { name: "Ana" });
  vera = await makeUser(w.db, "vera@shop.example", { name: "Vera" });
  otto = await makeUser(w.db, "otto@other.example", { name: "Otto" });
  await addMembership(w.db.platform, shop.id, ana.id, "owner");
  await addMembership(w.db.platform, shop.id, vera.id, "viewer");
  await addMembership(w.db.platform, other.id, otto.id, "owner");
});
afterAll(async () => {
  setProcessQueue(null);
  await closeLiveWakes();
  await w?.close();
});

const widgetGet = (key: string, path: string, token: string | null, origin: string | null = SITE) => {
  const headers = new Headers();
  if (token) headers.set("authorization", `Bearer ${token}`);
  if (origin) headers.set("origin", origin);
  return new Request(`${PLATFORM}/api/widget/${key}${path}`, { headers });
};
const fetchPhoto = (key: string, url: string, token: string, origin: string | null = SITE) => {
  const tokenPart = url.split("/avatars/")[1]!;
  return visitorPhoto(widgetGet(key, `/avatars/${tokenPart}`, token, origin), {
    params: Promise.resolve({ key, token: tokenPart }),
  });
};

/** A visitor of `shop` whose conversation Ana claimed and answered; the person as their stream names them. */
async function joinedByAna() {
  const token = await w.token(shop.widgetKey);
  const id = await visitorConversation(w.db, shop, token, process.env.MICHI_AUTH_SECRET!);
  await recordPresence(ctx(ana, shop, "owner"), { away: "false" });
  const [c] = await w.db.platform.select().from(conversations).where(eq(conversations.id, id));
  expect(
    await requestPerson(w.db, { tenantId: shop.id, visitorId: c!.visitorId, conversationId: id }),
  ).toMatchObject({
    live: true,
  });
  await claimConversation(ctx(ana, shop, "owner"), { conversationId: id });
  await sendAgentReply(ctx(ana, shop, "owner"), { conversationId: id, text: "Hi, Ana here." });
  const res = await events(widgetGet(shop.widgetKey, `/conversations/${id}/events`, token), {
    params: Promise.resolve({ key: shop.widgetKey, id }),
  });
  const live = readLive(res);
  await live.until((m) => m.some((x) => x.event === "agent_message"));
  await live.close();
  const raw = JSON.stringify(live.messages);
  const joined = live.messages.find((m) => m.event === "state" && (m.data.data as { agent?: unknown }).agent);
  const agent = (joined!.data.data as { agent: { name: string; avatarUrl?: string; id?: string } }).agent;
  const said = live.messages.find((m) => m.event === "agent_message")!.data.data as {
    agent: { name: string; avatarUrl?: string };
  };
  return { token, id, agent, said: said.agent, raw };
}

describe("uploading a photo", () => {
  it("refuses a file that is not PNG, JPEG or WebP by its bytes, and one over 256 KB", async () => {
    const me = ctx(ana, shop, "owner");
    const html = Buffer.from("<html><script>alert(document.cookie)</script></html>");
    await expect(setProfilePhoto(me, html)).rejects.toMatchObject({
      code: "invalid_input",
      details: { fieldErrors: { photo: ["Use a PNG, JPEG or WebP image."] } },
    });
    const big = Buffer.concat([png(8, 8), Buffer.alloc(300 * 1024)]);
    await expect(setProfilePhoto(me, big)).rejects.toMatchObject({
      details: { fieldErrors: { photo: [expect.stringContaining("256 KB")] } },
    });
    expect(await w.db.platform.select().from(userAvatars).where(eq(userAvatars.userId, ana.id))).toEqual([]);
  });

  it("stores a genuine photo without the camera's metadata, a viewer's too (it is their own account)", async () => {
    // Issue #44: metadata hidden where a chunk-by-chunk stripper did not look reached every visitor.
    for (const [type, file] of [
      ["image/jpeg", await jpegWithHiddenMetadata()],
      ["image/png", await pngWithHiddenMetadata()],
      ["image/webp", await webpWithHiddenMetadata()],
    ] as const) {
      const stored = await setProfilePhoto(ctx(vera, shop, "viewer"), file);
      const [row] = await w.db.platform.select().from(userAvatars).where(eq(userAvatars.userId, vera.id));
      expect(row).toMatchObject({ contentType: type, version: stored.version });
      expect(secretsIn(row!.image), type).toEqual([]);
      const meta = await sharp(row!.image).metadata();
      expect(meta.exif, type).toBeUndefined();
      expect(await sharp(row!.image).raw().toBuffer(), type).toHaveLength(
        (meta.width ?? 0) * (meta.height ?? 0) * 3,
      );
    }
  });
});

describe("the visitor sees the photo of who joined", () => {
  it("by an opaque address under the widget's key, never the person's user id or e-mail", async () => {
    const { version } = await setProfilePhoto(ctx(ana, shop, "owner"), photo);
    const { token, id, agent, said, raw } = await joinedByAna();
    expect(agent.name).toBe("Ana");
    expect(agent.avatarUrl).toMatch(new RegExp(`^/api/widget/${shop.widgetKey}/avatars/[A-Za-z0-9_-]{102}$`));
    expect(said.avatarUrl).toBe(agent.avatarUrl);
    expect(agent).not.toHaveProperty("id");
    expect(raw).not.toContain(ana.id);
    expect(raw).not.toContain("ana.private");
    expect(raw).not.toContain(version);

    const res = await fetchPhoto(shop.widgetKey, agent.avatarUrl!, token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    // The same picture, pixel for pixel (PNG stays lossless when it is rebuilt).
    const served = await sharp(Buffer.from(await res.arrayBuffer()))
      .raw()
      .toBuffer();
    expect(served.equals(await sharp(photo).raw().toBuffer())).toBe(true);
    // The panel's same-origin fetch carries no Origin, only Sec-Fetch-Site: served as well.
    const same = visitorPhoto(
      new Request(`${PLATFORM}${agent.avatarUrl}`, {
        headers: { authorization: `Bearer ${token}`, "sec-fetch-site": "same-origin" },
      }),
      { params: Promise.resolve({ key: shop.widgetKey, token: agent.avatarUrl!.split("/avatars/")[1]! }) },
    );
    expect((await same).status).toBe(200);

    // The history names the person the same way after a reload.
    const h = await history(widgetGet(shop.widgetKey, `/conversations/${id}`, token), {
      params: Promise.resolve({ key: shop.widgetKey, id }),
    });
    const text = await h.text();
    expect(JSON.parse(text).messages.find((m: { role: string }) => m.role === "agent").agent).toEqual({
      name: "Ana",
      avatarUrl: agent.avatarUrl,
    });
    expect(text).not.toContain(ana.id);
  });

  it("is served to nobody else: another visitor, another business's key, no token", async () => {
    await setProfilePhoto(ctx(ana, shop, "owner"), photo);
    const { agent } = await joinedByAna();
    const url = agent.avatarUrl!;
    const stranger = await w.token(shop.widgetKey);
    expect((await fetchPhoto(shop.widgetKey, url, stranger)).status).toBe(404);
    const elsewhere = await w.token(other.widgetKey);
    expect((await fetchPhoto(other.widgetKey, url, elsewhere)).status).toBe(404);
    const missing = await fetchPhoto(shop.widgetKey, url, "");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("cache-control")).toBe("no-store");
  });

  it("stops with the photo: a new photo is a new address, a removed one is gone, the initial shows", async () => {
    await setProfilePhoto(ctx(ana, shop, "owner"), photo);
    const before = await joinedByAna();
    await setProfilePhoto(ctx(ana, shop, "owner"), png(16, 16, [0, 128, 0]));
    expect((await fetchPhoto(shop.widgetKey, before.agent.avatarUrl!, before.token)).status).toBe(404);
    const after = await joinedByAna();
    expect(after.agent.avatarUrl).not.toBe(before.agent.avatarUrl);
    expect((await fetchPhoto(shop.widgetKey, after.agent.avatarUrl!, after.token)).status).toBe(200);

    await removeProfilePhoto(ctx(ana, shop, "owner"));
    expect((await fetchPhoto(shop.widgetKey, after.agent.avatarUrl!, after.token)).status).toBe(404);
    const none = await joinedByAna();
    expect(none.agent).toEqual({ name: "Ana" });
  });
});

describe("the team sees the photo in the console", () => {
  const get = (slug: string, userId: string, version: string) =>
    adminPhoto(new Request(`${PLATFORM}/api/admin/${slug}/avatars/${userId}?v=${version}`), {
      params: Promise.resolve({ tenant: slug, userId }),
    });

  it("every member, a viewer too; not another business's member, not an old version", async () => {
    const { version } = await setProfilePhoto(ctx(ana, shop, "owner"), photo);
    const otto1 = await setProfilePhoto(ctx(otto, other, "owner"), png(4, 4));
    const [veraRow] = await w.db.platform.select().from(users).where(eq(users.id, vera.id));
    actAs(veraRow!);
    const res = await get(shop.slug, ana.id, version);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
    // Otto is not a member of the shop: his photo does not exist there, even by the right version.
    expect((await get(shop.slug, otto.id, otto1.version)).status).toBe(404);
    expect((await get(shop.slug, ana.id, "0000000000000000")).status).toBe(404);
    expect((await get(other.slug, ana.id, version)).status).toBe(404);
  });
});

describe("deleting the account deletes the photo", () => {
  it("goes with the user row", async () => {
    const gone = await makeUser(w.db, "leaving@shop.example");
    await setProfilePhoto(ctx(gone, shop, "viewer"), png(4, 4));
    await w.db.platform.delete(users).where(eq(users.id, gone.id));
    expect(await w.db.platform.select().from(userAvatars).where(eq(userAvatars.userId, gone.id))).toEqual([]);
  });
});
