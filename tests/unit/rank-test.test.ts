import { describe, expect, it } from "vitest";
import { mannWhitney } from "../support/rank-test";

// The timing tests rest on this comparison; it must tell a shift from noise.
describe("mannWhitney", () => {
  it("finds no difference between two samples of the same values", () => {
    const a = Array.from({ length: 50 }, (_, i) => (i * 7919) % 101);
    const b = Array.from({ length: 50 }, (_, i) => (i * 104729) % 101);
    expect(mannWhitney(a, b).p).toBeGreaterThan(0.05);
  });

  it("finds a shift of a third of the spread over 60 + 60 samples", () => {
    const a = Array.from({ length: 60 }, (_, i) => (i * 37) % 60);
    const b = a.map((v) => v + 20);
    const r = mannWhitney(a, b);
    expect(r.p).toBeLessThan(0.001);
    expect(r.medianB - r.medianA).toBe(20);
  });

  it("matches a worked example (U and the two-sided p of the normal approximation)", () => {
    // a's ranks are 1, 2, 4, 6 among 8 values: U = 13 - 10 = 3, mean 8, sd sqrt(16 * 9 / 12).
    const r = mannWhitney([1, 2, 4, 6], [3, 5, 7, 8]);
    expect(r.u).toBe(3);
    expect(r.z).toBeCloseTo((3 - 8) / Math.sqrt(12), 6);
    expect(r.p).toBeCloseTo(0.1489, 3);
  });
});
