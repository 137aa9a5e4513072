import { type Browser, expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { signIn } from "./admin-support";

// Document uploads on the Knowledge page, on the production build: the operator (owner of the demo tenant)
// uploads a Markdown file, watches it become indexed through the durable job and the built extraction
// worker, finds its passage with a test question (cited by file name, no link), sees a file over 20 MB refused
// before anything is sent, and deletes the document, after which the test question finds nothing of it.

test.describe.configure({ mode: "serial" });

const KNOWLEDGE = "/admin/demo/knowledge";

async function signedIn(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, E2E.operator);
  return page;
}

test("upload a document, find it, refuse a large one, delete it", async ({ browser }) => {
  const page = await signedIn(browser);
  await page.goto(KNOWLEDGE);
  const docs = page.locator("#documents");
  const name = `terrace-${test.info().repeatEachIndex + 1}.md`;
  await docs.getByLabel(/^File/).setInputFiles({
    name,
    mimeType: "text/markdown",
    buffer: Buffer.from("# Terrace\n\nThe rooftop terrace opens in April and seats forty guests.\n"),
  });
  await docs.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByText(`${name} uploaded; it is being read.`)).toBeVisible();
  const row = docs.getByRole("row").filter({ hasText: name });
  await expect(row.getByTestId("document-state")).toHaveText("indexed", { timeout: 30_000 });

  await page.getByRole("textbox", { name: "Test question" }).fill("when does the rooftop terrace open");
  await page.getByRole("button", { name: "Ask" }).click();
  const result = page.getByTestId("test-result");
  await expect(result).toContainText(`${name} (document)`);
  await expect(result.getByRole("link", { name })).toHaveCount(0);

  await docs.getByLabel(/^File/).setInputFiles({
    name: "huge.txt",
    mimeType: "text/plain",
    buffer: Buffer.alloc(20 * 1024 * 1024 + 1, 0x61),
  });
  await docs.getByRole("button", { name: "Upload" }).click();
  await expect(docs.getByText("huge.txt is larger than 20 MB; upload a smaller file.")).toBeVisible();

  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(docs.getByRole("row").filter({ hasText: name })).toHaveCount(0);
  await page.getByRole("textbox", { name: "Test question" }).fill("when does the rooftop terrace open");
  await page.getByRole("button", { name: "Ask" }).click();
  await expect(page.getByTestId("test-result")).not.toContainText(name);
  await page.context().close();
});

test("an old Word file (.doc) is refused once, with how to save it as DOCX", async ({ browser }) => {
  const page = await signedIn(browser);
  await page.goto(KNOWLEDGE);
  const docs = page.locator("#documents");
  await docs.getByLabel(/^File/).setInputFiles({
    name: "menu.doc",
    mimeType: "application/msword",
    // The start of an OLE2 compound file, which is what Word 97–2003 writes.
    buffer: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
  });
  await docs.getByRole("button", { name: "Upload" }).click();
  const refusal = docs.getByText(/Save it as DOCX/);
  await expect(refusal).toHaveCount(1);
  await expect(refusal).toBeVisible();
  await expect(docs.getByLabel(/^File/)).toHaveAttribute("aria-invalid", "true");
  await page.context().close();
});
