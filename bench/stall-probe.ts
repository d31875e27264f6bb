/**
 * Preloaded into the benchmark's salt-master (`node --require dist/bench/stall-probe.js`): watches
 * the event loop's delay. On SIGUSR2 it writes {maxMs, p99Ms, meanMs} since the last SIGUSR2 to
 * the file named by BRINE_BENCH_STALL_FILE and starts a new period. The master's own code is
 * untouched; the longest stall is what a publish or a return had to wait behind.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BRINE_BENCH_STALL_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Number((ns / 1e6).toFixed(1));
    writeFileSync(
      file,
      JSON.stringify({ maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean), at: Date.now() }),
    );
    histogram.reset();
  });
}
