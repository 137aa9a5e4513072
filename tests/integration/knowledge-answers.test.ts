import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { addCuratedAnswer, updateCuratedAnswer } from "@/lib/knowledge/answers";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// Editing a curated answer: the new wording is what the assistant gets from then on, the old questions stop
// matching, bad input names every field at once and changes nothing, saving the same text changes nothing,
// viewers cannot edit, and every edit is audited with the fields it changed.

let t: TestDb;
type Ctx = Parameters<typeof addCuratedAnswer>[0];
let owner: Ctx;
let viewer: Ctx;

beforeAll(async () => {
  t = await installTestDb();
  const o = await makeUser(t.handle, "owner@answers.test");
  const v = await makeUser(t.handle, "viewer@answers.test");
  const tenant = await makeTenant(t.handle, "kn-answers", [
    [o, "owner"],
    [v, "viewer"],
  ]);
  const user = (u: typeof o) => ({
    id: u.id,
    email: u.email,
    name: "",
    isOperator: false,
    mustChangePassword: false,
  });
  owner = { db: t.handle, tenant, role: "owner", user: user(o) } as Ctx;
  viewer = { db: t.handle, tenant, role: "viewer", user: user(v) } as Ctx;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function audit() {
  return rowsOf<{ action: string; details: { fields?: string[] } | null }>(
    t.handle.platform,
    sql`select action, details from audit_log where action = 'knowledge.answer_updated' order by created_at`,
  );
}

async function stored() {
  return (await loadKnowledgeView(owner)).answers.map((a) => ({ questions: a.questions, answer: a.answer }));
}

describe("editing a curated answer", () => {
  it("rewrites what the assistant gets, and the old wording stops matching", async () => {
    const { id } = await addCuratedAnswer(owner, {
      questions: ["Can I bring my dog?"],
      answer: "Dogs are welcome on the terrace.",
      lang: "en",
    });
    const r = await updateCuratedAnswer(owner, id, {
      questions: "Is there a kids menu?\nDo you cook for children?",
      answer: "Yes: half portions of every main course.",
      lang: "en",
    });
    expect(r.changed).toBe(true);
    const test = await askTestQuestion(owner, "do you cook for children");
    expect(test.curated?.answer).toBe("Yes: half portions of every main course.");
    expect(JSON.parse(test.modelSees).answer_from_business.answer).toBe(
      "Yes: half portions of every main course.",
    );
    expect((await askTestQuestion(owner, "can I bring my dog")).curated).toBeNull();
    expect((await audit()).map((a) => a.details?.fields)).toEqual([["questions", "answer"]]);

    // The same text again: nothing to save, nothing audited.
    expect(
      (
        await updateCuratedAnswer(owner, id, {
          questions: "Is there a kids menu?\nDo you cook for children?",
          answer: "Yes: half portions of every main course.",
          lang: "en",
        })
      ).changed,
    ).toBe(false);
    expect(await audit()).toHaveLength(1);
  });

  it("bad input names every field at once and keeps the stored answer", async () => {
    const before = await stored();
    const id = (await loadKnowledgeView(owner)).answers[0]!.id;
    const err = await updateCuratedAnswer(owner, id, { questions: "  \n ", answer: "", lang: "en" }).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ code: "invalid_input" });
    expect(err.details.fieldErrors).toEqual({
      questions: ["Write at least one question."],
      answer: ["Write the answer."],
    });
    expect(await stored()).toEqual(before);
  });

  it("viewers cannot edit, and an unknown answer is not found", async () => {
    const before = await stored();
    const id = (await loadKnowledgeView(owner)).answers[0]!.id;
    await expect(
      updateCuratedAnswer(viewer, id, { questions: "Forged?", answer: "Forged", lang: "en" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      updateCuratedAnswer(owner, "00000000-0000-4000-8000-00000000abcd", {
        questions: "Q?",
        answer: "A",
        lang: "en",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      updateCuratedAnswer(owner, "not-an-id", { questions: "Q?", answer: "A", lang: "en" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await stored()).toEqual(before);
  });
});
