import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { loadKnowledgeView } from "@/lib/knowledge/views";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { installTestDb, TEST_PUBLIC_URL } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { lazyBody } from "../support/lazy-body";

// The document upload route: the caller (session, role, tenant) is settled before a byte of the body is read,
// the body is refused by its Content-Length or while it streams past 20 MB, and a good file becomes a document
// through the upload use case, like the server action it replaces.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { POST } = await import("@/app/api/admin/[tenant]/knowledge/upload/route");

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let stranger: Awaited<ReturnType<typeof makeUser>>;
let shop: Awaited<ReturnType<typeof makeTenant>>;
// The extraction job is queued with the document; what it does is knowledge-uploads.test.ts's concern.
const queued: string[] = [];
const queue: JobQueue = {
  sendIn: async (_tx, name) => {
    queued.push(name);
    return "job";
  },
  send: async (name) => {
    queued.push(name);
    return "job";
  },
  stop: async () => {},
};

beforeAll(async () => {
  t = await installTestDb();
  setProcessQueue(queue);
  owner = await makeUser(t.handle, "owner@upload-route.test");
  viewer = await makeUser(t.handle, "viewer@upload-route.test");
  stranger = await makeUser(t.handle, "stranger@upload-route.test");
  shop = await makeTenant(t.handle, "kn-upload-route", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  await makeTenant(t.handle, "kn-upload-other", [[stranger, "owner"]]);
}, 60_000);
afterAll(async () => {
  setProcessQueue(null);
  await t?.close();
});

function upload(
  body: BodyInit | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  slug = shop.slug,
) {
  const req = new Request(`${TEST_PUBLIC_URL}/api/admin/${slug}/knowledge/upload`, {
    method: "POST",
    headers: {
      origin: TEST_PUBLIC_URL,
      "content-type": "application/octet-stream",
      "x-file-name": encodeURIComponent("Opening hours.md"),
      ...headers,
    },
    body,
    duplex: "half",
  } as RequestInit);
  return POST(req, { params: Promise.resolve({ tenant: slug }) });
}

const documents = async () =>
  (
    await loadKnowledgeView({
      user: { ...owner, isOperator: false, mustChangePassword: false },
      tenant: shop,
      role: "owner",
      db: t.handle,
    } as TenantContext)
  ).uploads.map((u) => u.fileName);

describe("the upload route", () => {
  it("stores a file sent by an admin and says it is being read", async () => {
    actAs(owner);
    const res = await upload("# Opening hours\n\nMonday to Friday, 9 to 5.");
    expect(res.status).toBe(201);
    expect(((await res.json()) as { message: string }).message).toBe(
      "Opening hours.md uploaded; it is being read.",
    );
    expect(await documents()).toContain("Opening hours.md");
    expect(queued).toEqual(["knowledge.upload"]);
  });

  it("refuses a viewer, a stranger and a signed-out caller before reading any of the body", async () => {
    for (const [who, slug, status] of [
      [viewer, shop.slug, 403],
      [stranger, shop.slug, 404],
      [null, shop.slug, 401],
    ] as const) {
      actAs(who);
      const body = lazyBody(1024 * 1024);
      const res = await upload(body.stream, { "x-file-name": "viewer.md" }, slug);
      expect(res.status, String(who?.email)).toBe(status);
      // Nothing past the one chunk a stream buffers ahead when it is created.
      expect(body.pulled(), String(who?.email)).toBeLessThanOrEqual(8 * 1024);
    }
    expect(await documents()).not.toContain("viewer.md");
  });

  it("refuses by Content-Length at once, and a chunked body at the first chunk past 20 MB", async () => {
    actAs(owner);
    const declared = lazyBody(1024 * 1024);
    const byLength = await upload(declared.stream, { "content-length": String(21 * 1024 * 1024) });
    expect(byLength.status).toBe(413);
    expect(declared.pulled()).toBeLessThanOrEqual(8 * 1024);

    const endless = lazyBody(200 * 1024 * 1024, 64 * 1024);
    const streamed = await upload(endless.stream, { "x-file-name": "huge.txt" });
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { message: string } }).error.message).toBe(
      "The file is larger than 20 MB.",
    );
    // The cap plus the chunks in flight, not 200 MB.
    expect(endless.pulled()).toBeLessThanOrEqual(20 * 1024 * 1024 + 256 * 1024);
    expect(await documents()).not.toContain("huge.txt");
  });

  it("refuses what a plain HTML form could send (another site's page posting into the admin)", async () => {
    actAs(owner);
    const form = await upload("x", { "content-type": "multipart/form-data; boundary=x" });
    expect(form.status).toBe(415);
    const crossSite = await upload("x", { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
  });

  // Issue #44: "../../../../etc/passwd.txt" was kept whole as the document's title, and a NUL answered 500.
  it("keeps only the base name of what was sent, whichever separator the sender's system used", async () => {
    actAs(owner);
    for (const [sent, kept] of [
      ["../../../../etc/passwd.txt", "passwd.txt"],
      ["..\\..\\windows\\win.ini.txt", "win.ini.txt"],
      ["C:\\Users\\ana\\Menu 2026.md", "Menu 2026.md"],
      ["/var/tmp/./a/../notes.md", "notes.md"],
    ] as const) {
      const res = await upload("some text", { "x-file-name": encodeURIComponent(sent) });
      expect(res.status, sent).toBe(201);
      expect(((await res.json()) as { message: string }).message).toBe(`${kept} uploaded; it is being read.`);
      const names = await documents();
      expect(names, sent).toContain(kept);
      expect(
        names.some((n) => /[\\/]|\.\./.test(n)),
        sent,
      ).toBe(false);
    }
  });

  it("refuses a name with control characters in words, with a 400 and nothing stored", async () => {
    actAs(owner);
    for (const sent of [
      "menu\u0000.txt",
      "a\u0000\u0000.pdf",
      "line\nbreak.md",
      "bell\u0007.txt",
      "x\u007f.md",
      "report\u202Efdp.txt",
    ]) {
      const res = await upload("some text", { "x-file-name": encodeURIComponent(sent) });
      expect(res.status, JSON.stringify(sent)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
        "The file name contains control characters. Rename the file and upload it again.",
      );
    }
    expect((await documents()).some((n) => /[\p{Cc}\u202e]/u.test(n))).toBe(false);
  });
});
