// The Mann-Whitney U test (two-sided, normal approximation with the tie correction): do two samples come
// from the same distribution? It compares ranks, not means, so a few samples slowed by a busy machine move
// the answer little, and it needs no threshold in milliseconds. Written from the textbook definition.

export type RankTest = { u: number; z: number; p: number; medianA: number; medianB: number };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// Abramowitz and Stegun 7.1.26: erf to about 1.5e-7, plenty for a p-value.
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return sign * y;
}

export function mannWhitney(a: number[], b: number[]): RankTest {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(all.length);
  let tieTerm = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[k] = rank;
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    i = j + 1;
  }
  const rankSumA = all.reduce((s, x, i) => s + (x.g === 0 ? ranks[i]! : 0), 0);
  const n1 = a.length;
  const n2 = b.length;
  const n = n1 + n2;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const sd = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  const z = sd === 0 ? 0 : (u - mean) / sd;
  const p = 1 - erf(Math.abs(z) / Math.SQRT2);
  return { u, z, p, medianA: median(a), medianB: median(b) };
}
