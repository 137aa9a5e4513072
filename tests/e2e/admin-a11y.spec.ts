import { readdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signedInContext, visitorTurn } from "./admin-support";

// axe-core on every admin page, in the light and the dark theme: no serious or critical violation. The pages
// are found in the source tree (every page.tsx under src/app/(admin)/admin), so a page added later is checked
// without editing this list; a new dynamic segment needs a value in PARAMS below, or this spec says so.
// One test per page (both themes at once): the whole sweep in one test outgrew any fixed budget on a busy
// machine (CI at load 17 stopped it after 4 minutes), while one page with axe takes seconds.

const ADMIN_ROOT = path.join(process.cwd(), "src/app/(admin)/admin");

function pageRoutes(dir = ADMIN_ROOT, prefix = "/admin"): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...pageRoutes(path.join(dir, entry.name), `${prefix}/${entry.name}`));
    else if (entry.name === "page.tsx") out.push(prefix);
  }
  return out.sort();
}

let params: Record<string, string[]> = {};
let endpointId = "";
let runId = "";
const themed: { light?: Page; dark?: Page } = {};

test.beforeAll(async ({ browser }) => {
  const widget = await request.newContext({ baseURL: E2E.appUrl });
  // A conversation to open (the fake model echoes); and the café's id for the operator's per-business page.
  const conversation = await visitorTurn(widget, E2E.cafe.widgetKey, "a11y check: hello");
  await widget.dispose();

  const probe = await signedInContext(browser, E2E.operator);
  await probe.goto("/admin/operator");
  const href = await probe.getByRole("link", { name: "E2E Café", exact: true }).getAttribute("href");
  const tenantId = href!.split("/").pop()!;
  // The café's webhook endpoint (the world seeds one), for the endpoint page, whose segment is also [id].
  await probe.goto(`/admin/${E2E.cafe.slug}/webhooks`);
  const hook = await probe
    .locator(`main a[href*="/admin/${E2E.cafe.slug}/webhooks/"]`)
    .first()
    .getAttribute("href");
  endpointId = hook!.split("/").pop()!;
  // A test run, for a run's page (its segment is an [id] too): one question added, then "Run now".
  await probe.goto(`/admin/${E2E.cafe.slug}/tests`);
  await probe
    .getByLabel("Question, as a visitor would ask it")
    .fill(`a11y check: are you open? ${Date.now()}`);
  await probe.getByRole("button", { name: "Add question" }).click();
  await probe.getByRole("button", { name: "Run now" }).click();
  const run = await probe
    .locator(`main a[href*="/admin/${E2E.cafe.slug}/tests/runs/"]`)
    .first()
    .getAttribute("href");
  runId = run!.split("/").pop()!;
  await probe.context().close();

  params = {
    "[tenant]": [E2E.cafe.slug],
    "[id]": [conversation],
    "[packId]": ["check_stock", "fetch_json"],
    "[tenantId]": [tenantId],
  };
  // One signed-in browser context per theme, kept for every page of this file.
  themed.light = await signedInContext(browser, E2E.operator, { colorScheme: "light" });
  themed.dark = await signedInContext(browser, E2E.operator, { colorScheme: "dark" });
});
test.afterAll(async () => {
  await themed.light?.context().close();
  await themed.dark?.context().close();
});

function urlsOf(route: string): string[] {
  let list = [route];
  for (const segment of route.match(/\[[^\]]+\]/g) ?? []) {
    // A conversation, a webhook endpoint and a test run are each an [id]; the route says which.
    const values =
      segment === "[id]" && route.includes("/webhooks/")
        ? [endpointId]
        : segment === "[id]" && route.includes("/tests/runs/")
          ? [runId]
          : params[segment];
    expect(values, `add a value for ${segment} (page ${route}) to PARAMS`).toBeDefined();
    list = list.flatMap((u) => values!.map((v) => u.replace(segment, v)));
  }
  return list;
}

async function sweep(page: Page, url: string, colorScheme: string) {
  const res = await page.goto(url);
  expect(res?.status(), url).toBeLessThan(400);
  // Open every disclosure (traces, the delete question) so their contents are checked too.
  await page.locator("main details").evaluateAll((all) => {
    for (const d of all) (d as HTMLDetailsElement).open = true;
  });
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => ({ url: page.url(), colorScheme, id: v.id, nodes: v.nodes.map((n) => n.target) })),
  ).toEqual([]);
}

test("the sweep covers the Tools page (the page list comes from the source tree)", () => {
  expect(pageRoutes()).toContain("/admin/[tenant]/tools");
});

// /admin itself only redirects (to the operator console here), which is checked on arrival.
for (const route of pageRoutes()) {
  test(`axe finds no serious or critical violation on ${route}, light and dark`, async () => {
    for (const url of urlsOf(route)) {
      // The two themes at once: while axe works in one context, the server renders for the other.
      await Promise.all([sweep(themed.light!, url, "light"), sweep(themed.dark!, url, "dark")]);
    }
  });
}
