import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// The setup checklist tells a business when the model server refused tools, in the server's words, with the
// fix for that kind of server.

const SERVER = "http://gpu-box:8000/v1";
process.env.OPENAI_BASE_URL = SERVER;
process.env.OPENAI_PRESET = "vllm";
process.env.MICHI_MODELS = "qwen-7b";

const { forgetLearned, learned } = await import("@/lib/chat/providers");

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@overview.test");
  await makeTenant(t.handle, "shop-o", [[owner, "owner"]]);
});
afterAll(async () => {
  forgetLearned();
  for (const k of ["OPENAI_BASE_URL", "OPENAI_PRESET", "MICHI_MODELS"]) delete process.env[k];
  await t?.close();
});

async function overview(): Promise<string> {
  actAs(owner);
  const { default: OverviewPage } = await import("@/app/(admin)/admin/[tenant]/page");
  return renderToStaticMarkup(await OverviewPage({ params: Promise.resolve({ tenant: "shop-o" }) }));
}

describe("setup checklist and the model server's tools", () => {
  it("says nothing about tools while the server has not refused them", async () => {
    forgetLearned();
    expect(await overview()).not.toContain("accept tools");
  });

  it("explains a server that refused tools, with the advice for vLLM", async () => {
    Object.assign(learned(SERVER, "qwen-7b"), {
      tools: false,
      toolsRefused:
        '400 "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      toolsAdvice: "Start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model>",
      toolsRefusedAt: Date.now(),
    });
    const html = await overview();
    expect(html).toContain("Your model server accepts tools (qwen-7b)");
    expect(html).toContain("does not accept tools, so the assistant answers without your packs");
    expect(html).toContain("Start vLLM with --enable-auto-tool-choice --tool-call-parser");
  });
});
