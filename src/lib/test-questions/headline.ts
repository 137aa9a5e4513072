import "server-only";

// The first line of a run's page, mail and webhook: what changed, then what broke. Plain code (the page
// imports it too).

type Counts = { total: number; passed: number; failed: number; changed: number; nowFailing: number };

const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;

/** "3 answers changed, 1 now fails"; "No answer changed, all 12 pass" when nothing moved. */
export function runHeadline(c: Counts, capped = false): string {
  const parts: string[] = [];
  parts.push(c.changed ? `${n(c.changed, "answer", "answers")} changed` : "No answer changed");
  if (c.nowFailing) parts.push(`${c.nowFailing} now ${c.nowFailing === 1 ? "fails" : "fail"}`);
  else if (c.failed === 0 && c.passed > 0) parts.push(c.passed === 1 ? "it passes" : `all ${c.passed} pass`);
  else if (c.failed) parts.push(`${c.failed} of ${c.passed + c.failed} ${c.failed === 1 ? "fails" : "fail"}`);
  const line = parts.join(", ");
  return capped ? `${line} (stopped at the run's token cap: some questions were not run)` : line;
}
