// npm run check:model — a plain turn and a tool turn against each configured model's real provider, reported
// in words (see docs/operators.md "Model providers"). Exits non-zero when a model cannot answer at all.
import { checkModels, describeChecks } from "../src/lib/chat/model-check";
import { env } from "../src/lib/env";

const checks = await checkModels(env());
console.log(describeChecks(checks));
process.exit(typeof checks === "string" || checks.some((c) => !c.ok) ? 1 : 0);
