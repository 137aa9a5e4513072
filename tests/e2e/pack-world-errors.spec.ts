import { type APIRequestContext, type Browser, expect, type Page, request, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { FAILING_PATHS } from "../support/e2e-fixture-routes";
import { fakeModelControl } from "../support/fake-model";
import { signIn } from "./admin-support";

// Issue 13 item 3, on the production build: a pack that meets a fact of the world (the site answers 404, never
// answers, answers with broken JSON) or throws ToolWorldError itself must give the model in a real chat exactly
// the text the admin's Test panel shows for the same pack and settings. The Test panel runs in a server action
// and the chat in a route handler, which the production build bundles apart; an `instanceof` check across them
// turned every world error of a real chat into "The tool failed unexpectedly".

test.describe.configure({ mode: "serial" });

const model = fakeModelControl(E2E.modelUrl);
// Each pack has its own page since the Tools list (issue 15); fetch_json is the one these tests configure.
const TOOLS = `/admin/${E2E.packs.slug}/tools/fetch_json`;
let admin: Page;
let widget: APIRequestContext;

async function signedInAdmin(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, E2E.operator);
  return page;
}

/** Saves fetch_json on the fixture site with this path and these fields, through the admin form. */
async function configure(path: string, fields: string) {
  await admin.goto(TOOLS);
  const card = admin.locator('section[data-pack="fetch_json"]');
  await card.getByLabel("Enabled: the bot may use this tool").check();
  await card.getByLabel("Site base URL").fill(E2E.fixtureOrigin);
  await card.getByLabel("Path of the JSON file").fill(path);
  await card.getByLabel("Fields to keep").fill(fields);
  await card.getByLabel("When should the bot use this?").fill("Use this to say whether we are open now.");
  await card.getByRole("button", { name: "Save", exact: true }).click();
  await expect(card.getByText("Checking our website: saved.")).toBeVisible();
}

// The e2e world keeps the default tool timeout; a pack that meets a silent site runs that long, by design.
const TOOL_TIMEOUT_MS = 8000;

/** What the Test panel says the model would see, for the saved settings. */
async function testPanelResult(): Promise<string> {
  // fetch_json takes no arguments from the model, so its Test panel has no fields to fill.
  const panel = admin.getByTestId("test-panel");
  await panel.getByRole("button", { name: "Test", exact: true }).click();
  const pre = panel.getByTestId("test-result").locator("pre");
  await expect(pre).toBeVisible({ timeout: TOOL_TIMEOUT_MS + 10_000 });
  return (await pre.textContent()) ?? "";
}

/** One visitor turn through the widget API in which the model calls fetch_json; returns the tool message. */
async function chatToolResult(message: string): Promise<{ toolResult: string; answer: string }> {
  await model.setRules([
    {
      match: message,
      steps: [
        { type: "tool_calls", calls: [{ name: "fetch_json", arguments: "{}" }] },
        { type: "text", text: "Sorry, I could not check: {{tool.error}}" },
      ],
    },
  ]);
  const headers = { Origin: E2E.appUrl };
  const session = await widget.post(`/api/widget/${E2E.packs.widgetKey}/session`, { headers });
  expect(session.status()).toBe(200);
  const { token } = (await session.json()) as { token: string };
  const res = await widget.post(`/api/widget/${E2E.packs.widgetKey}/chat`, {
    headers: { ...headers, Authorization: `Bearer ${token}` },
    data: { message, lang: "en" },
  });
  expect(res.status()).toBe(200);
  const body = await res.text();
  expect(body, body).toMatch(/event: done\n/);
  const answer = [...body.matchAll(/event: delta\ndata: (.+)\n/g)]
    .map((m) => (JSON.parse(m[1]!) as { text: string }).text)
    .join("");

  const sent = (await model.requests()).filter((r) =>
    r.body.messages.some((m) => m.role === "user" && m.content === message),
  );
  // The second model request carries the tool result the wrapper produced.
  const tool = sent.flatMap((r) => r.body.messages).find((m) => m.role === "tool");
  expect(tool, JSON.stringify(sent)).toBeDefined();
  return { toolResult: String(tool!.content), answer };
}

test.beforeAll(async ({ browser }) => {
  widget = await request.newContext({ baseURL: E2E.appUrl });
  admin = await signedInAdmin(browser);
});
test.afterAll(async () => {
  await widget?.dispose();
  await admin?.context().close();
});

const cases = [
  {
    name: "the site answers 404",
    path: FAILING_PATHS.missing,
    fields: "open",
    error: "Not found (HTTP 404)",
  },
  {
    name: "the site never answers",
    path: FAILING_PATHS.slow,
    fields: "open",
    // The wrapper's timeout (MICHI_TOOL_TIMEOUT_MS, 8 s by default) starts first, so it speaks first.
    error: /^The tool did not answer within \d+ s$/,
  },
  {
    name: "the site answers broken JSON",
    path: FAILING_PATHS.badJson,
    fields: "open",
    error: "The site did not answer with valid JSON",
  },
  {
    name: "the pack throws ToolWorldError itself (none of the fields are there)",
    path: "/api/hours/",
    fields: "notAField",
    error: "The page had none of the expected fields",
  },
];

for (const c of cases) {
  test(`${c.name}: the model gets what the Test panel shows`, async () => {
    test.setTimeout(45_000 + 2 * TOOL_TIMEOUT_MS);
    await configure(c.path, c.fields);
    const shown = await testPanelResult();
    const parsed = JSON.parse(shown) as { error: string };
    if (typeof c.error === "string") expect(parsed.error).toBe(c.error);
    else expect(parsed.error).toMatch(c.error);

    const { toolResult, answer } = await chatToolResult(`pack check ${c.path} ${c.fields}: open now?`);
    expect(toolResult).toBe(shown);
    expect(answer).toBe(`Sorry, I could not check: ${parsed.error}`);
  });
}
