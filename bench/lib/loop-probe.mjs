// Preloaded into the production server by the bench (`node --import <this file> michi-server.mjs`), so the
// event-loop delay is measured inside the process that accepts, reads and streams, without changing its code.
// On SIGUSR2 it writes the delay seen since the previous SIGUSR2 to $MICHI_BENCH_LOOP_FILE and starts over:
// the bench signals once when a level starts and once when it ends. (SIGUSR1 is Node's inspector signal.)
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.MICHI_BENCH_LOOP_FILE;
if (file) {
  // 10 ms is Node's default sampling timer. The histogram holds the time between two of its firings (an idle
  // loop reads ~10.1 ms), so the resolution is taken off: the figures are how late the timer fired, in ms.
  const RESOLUTION = 10;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION });
  h.enable();
  let seq = 0;
  process.on("SIGUSR2", () => {
    const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION) * 100) / 100);
    const out = {
      seq: ++seq,
      samples: h.count,
      p50: ms(h.percentile(50)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
      mean: ms(h.mean),
    };
    h.reset();
    writeFileSync(file, JSON.stringify(out));
  });
}
