import { expect, type Page, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { ownInstance, rawRequest, signInAt } from "./own-instance";

// Issue #44's web findings on a production instance of its own:
// - a document's file name with a NUL byte answered 500, and "../../../../etc/passwd.txt" was kept whole;
// - a server action replayed with malformed arguments answered 500;
// - tokens reached the access log through spellings the router normalises (`//`, `\`, `;params`, escapes),
//   and the channel webhooks' path key was logged with every delivery. This one stops the server: it runs last.

test.describe.configure({ mode: "serial", timeout: 180_000 });

const srv = ownInstance("hardening-web");

test("an uploaded document keeps its base name; a name with a NUL or another control character is a 400 in words", async ({
  page,
}) => {
  await signInAt(srv.base, page, E2E.operator);
  const upload = (name: string) =>
    page.request.post(`${srv.base}/api/admin/demo/knowledge/upload`, {
      headers: {
        origin: srv.base,
        "content-type": "application/octet-stream",
        "x-file-name": encodeURIComponent(name),
      },
      data: Buffer.from("# Notes\n\nOpen every day."),
    });
  for (const name of ["menu\u0000.txt", "a\u0000\u0000.pdf", "tab\there.md", "report\u202Efdp.txt"]) {
    const res = await upload(name);
    expect(res.status(), JSON.stringify(name)).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      "The file name contains control characters. Rename the file and upload it again.",
    );
  }
  const res = await upload("../../../../etc/passwd.txt");
  expect(res.status()).toBe(201);
  expect(((await res.json()) as { message: string }).message).toBe("passwd.txt uploaded; it is being read.");
  await page.goto(`${srv.base}/admin/demo/knowledge`);
  await expect(page.getByRole("button", { name: "Delete passwd.txt", exact: true })).toBeVisible();
  await expect(page.getByText("etc/passwd.txt")).toHaveCount(0);
});

/** The server action id of the page's form with this field (React writes it into the form for use without JS). */
async function actionIdOf(page: Page, field: string): Promise<string> {
  const form = page.locator("form", { has: page.locator(`[name="${field}"]`) }).first();
  const html = (await form.innerHTML()).replaceAll("&quot;", '"');
  const id = /"id":"([0-9a-f]{40,})"/.exec(html)?.[1] ?? /\$ACTION_ID_([0-9a-f]{40,})/.exec(html)?.[1];
  expect(id, field).toBeTruthy();
  return id as string;
}

test("a server action replayed with malformed arguments answers 400, not 500", async ({ page }) => {
  // An open action (sign-in), then a business's actions (the page binds the slug), each posted where it lives.
  await page.goto(`${srv.base}/signin`);
  const calls = [{ id: await actionIdOf(page, "email"), at: "/signin" }];
  await signInAt(srv.base, page, E2E.operator);
  await page.goto(`${srv.base}/admin/demo/account`);
  calls.push(
    { id: await actionIdOf(page, "name"), at: "/admin/demo/account" },
    { id: await actionIdOf(page, "currentPassword"), at: "/admin/demo/account" },
  );
  const bodies = [
    // Decodable, but no page sends these: an object for the bound business, a string for the form.
    JSON.stringify([{ slug: "demo" }, {}, "not a form"]),
    JSON.stringify([123, {}, {}]),
    JSON.stringify(["demo", {}, ["x"]]),
    JSON.stringify([]),
    // Not decodable at all.
    "[",
    '{"unclosed": ',
    '"$Q',
  ];
  for (const { id, at } of calls)
    for (const data of bodies) {
      const res = await page.request.post(`${srv.base}${at}`, {
        headers: { "next-action": id, "content-type": "text/plain;charset=UTF-8", origin: srv.base },
        data,
        maxRedirects: 0,
      });
      expect(res.status(), `${id.slice(0, 8)} ${data}`).toBe(400);
    }
});

test("no spelling of a secret path, nor a channel webhook's key, reaches the access log", async () => {
  const port = srv.port;
  const token = "Zq8Xv3Lm0Nw5Kp2Rt7Yb4Hc9Gd6Fs1Ja0Qe3Uo8Wi5";
  const key = "wk_9c7e5a3b1d2f4e6a8b0c1d3e5f7a9b2c4d6e8f0a";
  const targets = [
    `/signin//reset/${token}`,
    `/signin/reset//${token}`,
    `/invite//${token}`,
    `/signin/reset\\${token}`,
    `/signin/reset;a=b/${token}`,
    `/signin/%72eset/${token}`,
    `/%73ignin/reset/${token}`,
    `/%73%69%67%6E%69%6E/reset/${token}`,
    `/invite/./${token}`,
    `/signin/x/../reset/${token}`,
    `/invit%65/${token}`,
    `/INVITE/${token}`,
    `/api/channels/telegram/${key}`,
    `/api//channels/telegram/${key}`,
    `/api/channels/whatsapp/${key}?hub.mode=subscribe&hub.challenge=1`,
  ];
  const statuses = [];
  for (const t of targets)
    statuses.push((await rawRequest(port, `GET ${t} HTTP/1.1\r\nHost: 127.0.0.1:${port}`)).status);
  // Answered, whatever the answer: the point is what was logged.
  expect(statuses.every((s) => s >= 200 && s < 600)).toBe(true);

  const exited = new Promise<number | null>((resolve) => srv.child.once("exit", (code) => resolve(code)));
  srv.child.kill("SIGTERM"); // flushes what pino still gathers
  expect(await exited).toBe(0);
  const written = srv.logs();
  expect(written).toContain('"route":"/signin/reset/[redacted]"');
  expect(written).toContain('"route":"/invite/[redacted]"');
  expect(written).toMatch(/"route":"\/api\/channels\/(telegram|whatsapp)\/\[redacted\]"/);
  for (const secret of [token, key]) {
    expect(written).not.toContain(secret);
    expect(written).not.toContain(secret.slice(0, 16));
  }
});
