// A synthetic CPU load for the live bench's control phases (bench/live.ts): burns `msPerSec` ms of CPU per
// second of wall time, in `ticks` slices a second, until SIGTERM. The live load's CPU comes in small pieces
// (one per message, in several processes), so this does too. Each slice spins until this process's own CPU
// time (process.cpuUsage: the timer's wake-ups included, which at 200 slices a second are a good part of it)
// is back on the rate; a slice that ran late spins longer, as queued messages would, up to 50 ms at once.
const [msPerSec, ticks] = process.argv.slice(2).map(Number);
const period = 1000 / ticks;
const MAX_DEBT_MS = 50;
let start = 0;
let cpu0;
const used = () => {
  const u = process.cpuUsage(cpu0);
  return (u.user + u.system) / 1000;
};
function tick() {
  if (!start) {
    start = performance.now();
    cpu0 = process.cpuUsage();
  }
  const owed = () => (msPerSec * (performance.now() - start)) / 1000 - used();
  const debt = owed();
  // Far behind (the process was not scheduled for long): the excess is dropped, so one long stall does not
  // turn into one long burst that holds a core.
  if (debt > MAX_DEBT_MS) start += ((debt - MAX_DEBT_MS) * 1000) / msPerSec;
  while (owed() > 0);
  setTimeout(tick, period);
}
setTimeout(tick, Math.random() * period);
process.on("SIGTERM", () => process.exit(0));
process.send?.({ ready: true });
