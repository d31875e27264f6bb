/**
 * Preloaded into the benchmark's salt-master (`node --require dist/bench/stall-probe.js`): watches
 * the event loop's delay. On SIGUSR2 it writes {maxMs, p99Ms, meanMs} since the last SIGUSR2 to
 * the file named by BRINE_BENCH_STALL_FILE and starts a new period, with where the memory is at
 * that moment (V8's heap, and the memory outside it that JavaScript holds: buffers, KeyObjects). The master's own code is
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
    const mib = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));
    const { heapUsed, heapTotal, external } = process.memoryUsage();
    writeFileSync(
      file,
      JSON.stringify({
        maxMs: ms(histogram.max),
        p99Ms: ms(histogram.percentile(99)),
        meanMs: ms(histogram.mean),
        heapUsedMiB: mib(heapUsed),
        heapTotalMiB: mib(heapTotal),
        externalMiB: mib(external),
        at: Date.now(),
      }),
    );
    histogram.reset();
  });
}
