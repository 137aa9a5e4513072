import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { hostPageAt } from "../support/host-page";
import { signedInContext } from "./admin-support";
import { CAFE, model, panelOf } from "./widget-helpers";

// The world's host pages: one the café tenant allows, one no tenant allows.
const host = hostPageAt(E2E.hostPageOrigin);
const stranger = hostPageAt(E2E.strangerOrigin);

test("a site not on the tenant's list gets no launcher, cannot frame the panel, and the API refuses it", async ({
  page,
  request,
}) => {
  // The loader's launcher settings frame posts no settings, only the sentence naming the entry to add, which
  // the loader prints as one console warning; it draws nothing and takes its empty element away again. The
  // stranger is on http with a port, which a bare host never covers: the entry is its full origin.
  expect(stranger.origin).toMatch(/^http:\/\/[^/]+:\d+$/);
  const warned = page.waitForEvent("console", (m) => m.type() === "warning" && /michi-chat/.test(m.text()));
  await page.goto(stranger.url({ key: CAFE }));
  const warning = (await warned).text();
  expect(warning).toContain(`no chat launcher on ${stranger.origin}`);
  expect(warning).toContain(`Add ${stranger.origin} under Site & embed`);
  await expect(page.locator("michi-chat")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Open chat" })).toHaveCount(0);
  const refusedConfig = await request.get(`/w/${CAFE}/config`, { headers: { origin: stranger.origin } });
  expect(refusedConfig.status()).toBe(403);

  // Framing the panel by hand: the browser refuses because of frame-ancestors.
  const refused = page.waitForEvent("console", (m) => /frame-ancestors/.test(m.text()));
  const panelResponse = page.waitForResponse((r) => r.url().startsWith(`${E2E.appUrl}/w/${CAFE}`));
  await page.evaluate(
    (src) =>
      new Promise<void>((resolve) => {
        const f = document.createElement("iframe");
        f.src = src;
        f.onload = () => resolve();
        document.body.append(f);
      }),
    `${E2E.appUrl}/w/${CAFE}`,
  );
  const csp = (await panelResponse).headers()["content-security-policy"] ?? "";
  expect(csp).toContain(`frame-ancestors ${E2E.appUrl} ${host.origin}`);
  expect(csp).not.toContain(stranger.origin);
  await refused;
  expect(page.frames().some((f) => f.url().startsWith(`${E2E.appUrl}/w/`))).toBe(false);

  // The API itself: the browser cannot read it (no CORS grant), and the server answers 403.
  const fromPage = await page.evaluate(
    (url) =>
      fetch(url, { method: "POST" }).then(
        (r) => `status ${r.status}`,
        () => "blocked",
      ),
    `${E2E.appUrl}/api/widget/${CAFE}/session`,
  );
  expect(fromPage).toBe("blocked");
  const direct = await request.post(`/api/widget/${CAFE}/session`, { headers: { origin: stranger.origin } });
  expect(direct.status()).toBe(403);
  const chat = await request.post(`/api/widget/${CAFE}/chat`, {
    headers: { origin: stranger.origin, "content-type": "application/json" },
    data: { message: "hi" },
  });
  expect(chat.status()).toBe(403);
  const allowed = await request.post(`/api/widget/${CAFE}/session`, { headers: { origin: host.origin } });
  expect(allowed.status()).toBe(200);
});

test("Site & embed lists the site that was refused, so the owner sees the domain to add", async ({
  browser,
}) => {
  const page = await signedInContext(browser, E2E.operator);
  await page.goto(stranger.url({ key: CAFE }));
  await expect(page.locator("michi-chat")).toHaveCount(0);
  await page.goto(`/admin/${E2E.cafe.slug}/embed`);
  const list = page.getByTestId("refused-origins");
  await expect(list).toContainText("were refused");
  await expect(list).toContainText(stranger.origin);
  await expect(list.getByText(`add ${stranger.origin}`)).toBeVisible();
  await page.context().close();
});

test("the panel page and bundles carry their security and cache headers", async ({ request }) => {
  const page = await request.get(`/w/${CAFE}`);
  expect(page.status()).toBe(200);
  const h = page.headers();
  expect(h["content-security-policy"]).toMatch(/default-src 'none'.*script-src 'self'.*connect-src 'self'/);
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("no-referrer");
  expect(h["x-frame-options"]).toBeUndefined();
  const js = /<script src="(\/w\/panel\.[0-9a-f]{12}\.js)"/.exec(await page.text())?.[1];
  expect(js).toBeTruthy();
  const bundle = await request.get(js!);
  expect(bundle.status()).toBe(200);
  expect(bundle.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
  const loader = await request.get("/widget.js");
  expect(loader.headers()["cache-control"]).toContain("max-age=300");
  expect(loader.headers()["x-content-type-options"]).toBe("nosniff");
  expect((await request.get("/w/wk_no_such_key")).status()).toBe(404);
});

test("several widgets on one page do not interfere; the JS API and events address each by key", async ({
  page,
}) => {
  const OTHER = E2E.other.widgetKey;
  // The seeded second tenant does not list this host page, so its launcher settings frame is stubbed here
  // (a page posting them, as the platform's does): this test is about the loader keeping two widgets apart,
  // not about that tenant's framing.
  const settings = {
    michi: OTHER,
    type: "config",
    c: {
      color: "#222222",
      onColor: "#ffffff",
      position: "right",
      label: "Open other chat",
      closeLabel: "Close other chat",
      unread: "Open other chat, new message",
      title: "Chat with Other",
    },
  };
  await page.route(`${E2E.appUrl}/w/${OTHER}/config*`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<script>parent.postMessage(${JSON.stringify(settings)}, ${JSON.stringify(host.origin)})</script>`,
    }),
  );
  await page.goto(host.url({ key: [CAFE, OTHER] }));
  const cafeLauncher = page.getByRole("button", { name: "Open chat", exact: true });
  const otherLauncher = page.getByRole("button", { name: "Open other chat" });
  await expect(cafeLauncher).toBeVisible();
  await expect(otherLauncher).toBeVisible();

  await page.evaluate(
    (k) => (window as unknown as { michi(c: string, k?: string): void }).michi("open", k),
    CAFE,
  );
  await expect(panelOf(page).getByText("Welcome to E2E Café!")).toBeVisible();
  await expect(page.locator(`iframe[src*="/w/${OTHER}"]`)).toHaveCount(0);
  await expect(otherLauncher).toHaveAttribute("aria-expanded", "false");

  await page.evaluate(
    (k) => (window as unknown as { michi(c: string, k?: string): void }).michi("toggle", k),
    OTHER,
  );
  await expect(page.locator(`iframe[src*="/w/${OTHER}"]`)).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Close chat", exact: true })).toHaveAttribute(
    "aria-expanded",
    "true",
  );

  // Escape inside the café panel closes the café panel only.
  await panelOf(page).getByRole("textbox", { name: "Your message" }).press("Escape");
  await expect(page.locator(`iframe[src*="/w/${CAFE}"]`)).toBeHidden();
  await expect(page.getByRole("button", { name: "Close other chat" })).toHaveAttribute(
    "aria-expanded",
    "true",
  );
  await expect(page.locator("#events li")).toHaveText([
    `michi:open ${CAFE}`,
    `michi:open ${OTHER}`,
    `michi:close ${CAFE}`,
  ]);
});

test("calls made before the loader arrived are replayed, and data-michi-position is honoured", async ({
  page,
}) => {
  await page.goto(host.url({ key: CAFE, queue: "1", position: "left" }));
  await expect(panelOf(page).getByText("Welcome to E2E Café!")).toBeVisible();
  const box = await page.getByRole("button", { name: "Close chat" }).boundingBox();
  expect(box!.x).toBeLessThan(100);
});

test("the demo page embeds the demo tenant's widget like a customer site", async ({ page }) => {
  await model.reset();
  await page.goto("/demo");
  await expect(page.locator("pre")).toContainText('data-michi-key="');
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(
    page.frameLocator("michi-chat iframe").getByText(/opening hours, menu and where to find us/),
  ).toBeVisible();
});

test("under 480 px the open panel fills the screen", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 700 });
  await page.goto(host.url({ key: CAFE }));
  await page.getByRole("button", { name: "Open chat" }).click();
  await expect(panelOf(page).getByText("Welcome to E2E Café!")).toBeVisible();
  const box = await page.locator(`iframe[src*="/w/${CAFE}"]`).boundingBox();
  expect(box).toEqual({ x: 0, y: 0, width: 375, height: 700 });
});
