// A synthetic CPU load for the live bench's control phase (bench/live.ts): burns `msPerSec` ms of CPU per
// second of wall time in `ticks` slices a second (busy-spinning, then sleeping to the next slice), until
// SIGTERM. The live load's CPU comes in small pieces (one per message, in several processes), so this does too
// (bench/live.ts asks for 200 slices a second).
const [msPerSec, ticks] = process.argv.slice(2).map(Number);
const slice = msPerSec / ticks;
const period = 1000 / ticks;
// The schedule starts at the first slice: a slow start-up on a busy machine must not leave a backlog of slices
// that would then run back to back inside the measured window.
let next = 0;
function tick() {
  next ||= performance.now();
  const until = performance.now() + slice;
  while (performance.now() < until);
  next += period;
  setTimeout(tick, Math.max(0, next - performance.now()));
}
setTimeout(tick, Math.random() * period);
process.on("SIGTERM", () => process.exit(0));
process.send?.({ ready: true });
