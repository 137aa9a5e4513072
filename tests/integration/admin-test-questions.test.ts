import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The Test questions page and a run's page as an owner and a viewer read them (issue 42): the checks of each
// question in words, its last verdict, the run's headline first and what broke first; a viewer reads all of
// it and gets no form, button or import, but the CSV download.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { finishTestRun, insertTestQuestions, insertTestResult, requestTestRun, startTestRun } = await import(
  "@/lib/db/queries/test-questions"
);
const { default: TestsPage } = await import("@/app/(admin)/admin/[tenant]/tests/page");
const { default: RunPage } = await import("@/app/(admin)/admin/[tenant]/tests/runs/[id]/page");

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let runId: string;

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@tq.test");
  viewer = await makeUser(t.handle, "viewer@tq.test");
  const shop = await makeTenant(t.handle, "tq-shop", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  runId = await t.handle.forTenant(shop.id, async (tx) => {
    const [a, b] = await insertTestQuestions(tx, shop.id, [
      {
        question: "How much is a haircut?",
        expect: { mustContain: ["25 €"], noUnsupportedFigures: true },
        origin: "manual",
      },
      { question: "Do you sell bikes?", expect: { sayUnknown: true }, origin: "site" },
    ]);
    const id = (await requestTestRun(tx, shop.id, "knowledge", 0))!;
    await startTestRun(tx, id, { mode: "model", total: 2, tokenCap: 1000 });
    const result = { tenantId: shop.id, runId: id, citations: [], packs: [], tokens: 10 };
    await insertTestResult(tx, {
      ...result,
      questionId: b!.id,
      question: b!.question,
      pass: true,
      reasons: [],
      answer: "Sorry, I don't know.",
      changes: [],
      wasPass: true,
    });
    await insertTestResult(tx, {
      ...result,
      questionId: a!.id,
      question: a!.question,
      pass: false,
      reasons: ["It does not contain “25 €”."],
      answer: "A haircut is 28 €.",
      changes: ["answer", "verdict"],
      wasPass: true,
    });
    await finishTestRun(tx, id, { status: "done" });
    return id;
  });
}, 60_000);
afterAll(() => t?.close());

const page = async () =>
  renderToStaticMarkup(await TestsPage({ params: Promise.resolve({ tenant: "tq-shop" }) }));

describe("the Test questions page", () => {
  it("shows each question's checks in words and its last verdict; owners get the forms", async () => {
    actAs(owner);
    const html = await page();
    expect(html).toContain("A right answer contains “25 €”; states no figure its sources do not state.");
    expect(html).toContain("<strong>Failed</strong> last time: It does not contain “25 €”.");
    expect(html).toContain("1 answer changed, 1 now fails");
    expect(html).toContain("Run now");
    expect(html).toContain("Add question");
    expect(html).toContain("From your website");
    expect(html).toContain('href="/api/admin/tq-shop/tests/export"');
  });

  it("viewers read everything but get no form, button or import", async () => {
    actAs(viewer);
    const html = await page();
    expect(html).toContain("How much is a haircut?");
    expect(html).toContain('href="/api/admin/tq-shop/tests/export"');
    for (const owners of ["Run now", "Add question", "From your website", "Import", "Delete", "<textarea"])
      expect(html).not.toContain(owners);
  });
});

describe("a run's page", () => {
  it("leads with the headline, then what now fails, with its reasons and answer", async () => {
    actAs(viewer);
    const html = renderToStaticMarkup(
      await RunPage({ params: Promise.resolve({ tenant: "tq-shop", id: runId }) }),
    );
    const h1 = html.indexOf("1 answer changed, 1 now fails");
    expect(h1).toBeGreaterThan(-1);
    expect(html.indexOf("How much is a haircut?")).toBeLessThan(html.indexOf("Do you sell bikes?"));
    expect(html).toContain("<strong>Now fails</strong> · changed: answer text, pass/fail");
    expect(html).toContain("A haircut is 28 €.");
    expect(html).toContain("a knowledge sync");
  });
});
