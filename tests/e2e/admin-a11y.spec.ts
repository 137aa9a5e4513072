import { readdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signedInContext, visitorTurn } from "./admin-support";

// axe-core on every admin page, in the light and the dark theme: no serious or critical violation. The pages
// are found in the source tree (every page.tsx under src/app/(admin)/admin), so a page added later is checked
// without editing this list; a new dynamic segment needs a value in PARAMS below, or this spec says so.

const ADMIN_ROOT = path.join(process.cwd(), "src/app/(admin)/admin");

function pageRoutes(dir = ADMIN_ROOT, prefix = "/admin"): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...pageRoutes(path.join(dir, entry.name), `${prefix}/${entry.name}`));
    else if (entry.name === "page.tsx") out.push(prefix);
  }
  return out.sort();
}

test("axe finds no serious or critical violation on any admin page, light and dark", async ({ browser }) => {
  test.setTimeout(240_000);
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
  const endpointId = hook!.split("/").pop()!;
  await probe.context().close();

  const PARAMS: Record<string, string[]> = {
    "[tenant]": [E2E.cafe.slug],
    "[id]": [conversation],
    "[packId]": ["check_stock", "fetch_json"],
    "[tenantId]": [tenantId],
  };
  const urls = pageRoutes().flatMap((route) => {
    let list = [route];
    for (const segment of route.match(/\[[^\]]+\]/g) ?? []) {
      // Both a conversation and a webhook endpoint are an [id]; the route says which.
      const values = segment === "[id]" && route.includes("/webhooks/") ? [endpointId] : PARAMS[segment];
      expect(values, `add a value for ${segment} (page ${route}) to PARAMS`).toBeDefined();
      list = list.flatMap((u) => values!.map((v) => u.replace(segment, v)));
    }
    return list;
  });
  // /admin itself only redirects (to the operator console here), which is checked on arrival.
  expect(urls).toContain(`/admin/${E2E.cafe.slug}/tools`);

  // The sweep runs in several browser contexts at once, LANES per theme, each taking the next page from its
  // theme's list: while axe works through one page in the browser, the server renders the next for another.
  const LANES = 2;
  await Promise.all(
    (["light", "dark"] as const).flatMap((colorScheme) => {
      const queue = [...urls];
      return Array.from({ length: LANES }, async () => {
        const page = await signedInContext(browser, E2E.operator, { colorScheme });
        for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
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
        await page.context().close();
      });
    }),
  );
});
