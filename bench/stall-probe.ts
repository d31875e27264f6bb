/**
 * Preloaded into the benchmark's salt-master (`node --require dist/bench/stall-probe.js`): watches
 * the event loop's delay. On SIGUSR2 it writes {maxMs, p99Ms, meanMs} since the last SIGUSR2 to
 * the file named by BRINE_BENCH_STALL_FILE and starts a new period, with where the memory is at
 * that moment (V8's heap, and the memory outside it that JavaScript holds: buffers, KeyObjects). The master's own code is
 * untouched; the longest stall is what a publish or a return had to wait behind.
 *
 * With BRINE_BENCH_HEAP_SNAPSHOTS naming a folder, each reading of the soak (once the bench has
 * put a file named `soak` there) is followed by a V8 heap snapshot in it
 * (`<n>-<time>.heapsnapshot`), to find what grows; writing one stops the master for seconds (a
 * client waiting on its event bus meanwhile gives up), so a run with them measures nothing else.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';

const file = process.env.BRINE_BENCH_STALL_FILE;
const snapshots = process.env.BRINE_BENCH_HEAP_SNAPSHOTS;
let readings = 0;
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
    readings++;
    if (snapshots && existsSync(join(snapshots, 'soak'))) writeHeapSnapshot(join(snapshots, `${readings}-${Date.now()}.heapsnapshot`));
  });
}
