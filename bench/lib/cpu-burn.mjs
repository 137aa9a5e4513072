// A synthetic CPU load for the live bench's control phase (bench/live.ts): burns `msPerSec` ms of CPU per
// second of wall time in `ticks` slices a second (busy-spinning, then sleeping to the next slice), until
// SIGTERM. The live load's CPU comes in small pieces (one per message, in several processes), so this does too.
const [msPerSec, ticks] = process.argv.slice(2).map(Number);
const slice = msPerSec / ticks;
const period = 1000 / ticks;
let next = performance.now() + Math.random() * period;
function tick() {
  const until = performance.now() + slice;
  while (performance.now() < until);
  next += period;
  setTimeout(tick, Math.max(0, next - performance.now()));
}
setTimeout(tick, Math.max(0, next - performance.now()));
process.on("SIGTERM", () => process.exit(0));
process.send?.({ ready: true });
