/**
 * The weight of brine's own processes, as the scale issue measures them: a real `salt-minion`'s
 * resident memory idle (signed in, one job answered) and after `saltutil.sync_modules` brought a
 * TypeScript and a JavaScript module; the `salt` CLI's peak RSS for `salt '*' test.ping`; the CPU
 * of `salt --version`. The CLIs run under `/usr/bin/time -v` (its "Maximum resident set size" and
 * user + system time); the minion's figures are its VmRSS from /proc while it runs, read right
 * after its last job and again after SETTLE_MS with nothing to do: V8's memory reducer gives back
 * the heap a job left about 8 s after allocation stops (62.4 -> 57.1 MiB, 2026-12-06).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { binArgv, Cluster, REPO } from '../scripts/cluster';
import { BenchError } from './bench-error';
import { rssMiB, rssPartsMiB } from './procfs';
import { median, RUNS } from './render-bench';

/** The plugins e2e test's master file_roots: `_modules/greeter.ts` and `_modules/shouter.js`. */
const FILE_ROOTS = resolve(REPO, 'test', 'e2e', 'fixtures', 'plugins', 'file_roots');
const TIME = '/usr/bin/time';
/** How long an idle minion is left before its settled RSS is read (V8's reducer waits 8 s). */
const SETTLE_MS = 12_000;

export interface ProcessBenchResult {
  saltVersionCpuMs: number;
  saltVersionPeakRssMiB: number;
  saltPingPeakRssMiB: number;
  saltPingCpuMs: number;
  minionIdleRssMiB: number;
  /** The idle minion's RSS split: its own memory, and the pages of the files it maps (shared). */
  minionIdleParts: { anon: number; file: number };
  minionSyncedRssMiB: number;
  /** The same two, read again after SETTLE_MS with no job. */
  minionIdleSettledRssMiB: number;
  minionIdleSettledParts: { anon: number; file: number };
  minionSyncedSettledRssMiB: number;
  /** A bare `node` that has loaded zeromq and waits: the floor under any Node minion. */
  nodeZeromqRssMiB: number;
  nodeZeromqParts: { anon: number; file: number };
}

/** RSS of a Node process that loaded zeromq and does nothing else, read while it waits. */
async function nodeWithZeromq(): Promise<{ rss: number; parts: { anon: number; file: number } }> {
  const child = spawn(process.execPath, ['-e', "require('zeromq'); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    if (!String(chunk).startsWith('ready')) throw new BenchError('BENCH_PROCESS', `bench: node with zeromq said ${String(chunk)}`);
    return { rss: rssMiB(child.pid!), parts: rssPartsMiB(child.pid!) };
  } finally {
    child.kill();
  }
}

interface Timed {
  cpuMs: number;
  peakRssMiB: number;
}

/** One run of `argv` under `/usr/bin/time -v`: its user + system CPU and maximum RSS. */
function timed(argv: string[]): Timed {
  const res = spawnSync(TIME, ['-v', ...argv], { encoding: 'utf8' });
  if (res.status !== 0) throw new BenchError('BENCH_PROCESS', `bench: ${argv.join(' ')} failed (exit ${res.status}): ${res.stderr}`);
  const field = (name: string): number => {
    const m = new RegExp(`${name}: ([\\d.]+)`).exec(res.stderr);
    if (!m) throw new BenchError('BENCH_PROCESS', `bench: no '${name}' in /usr/bin/time -v output:\n${res.stderr}`);
    return Number(m[1]);
  };
  return {
    cpuMs: (field('User time \\(seconds\\)') + field('System time \\(seconds\\)')) * 1000,
    peakRssMiB: field('Maximum resident set size \\(kbytes\\)') / 1024,
  };
}

/** Median CPU and median peak RSS of RUNS runs after one warm-up run. */
function timedMedian(argv: string[]): Timed {
  timed(argv);
  const runs = Array.from({ length: RUNS }, () => timed(argv));
  return { cpuMs: median(runs.map((r) => r.cpuMs)), peakRssMiB: median(runs.map((r) => r.peakRssMiB)) };
}

export async function runProcessBench(): Promise<ProcessBenchResult> {
  if (!existsSync(TIME)) {
    throw new BenchError('BENCH_PROCESS', 'bench: /usr/bin/time is missing', { hint: 'install it: apt-get install time' });
  }
  const bin = (name: string) => [process.execPath, ...binArgv(name)];
  const version = timedMedian([...bin('salt'), '--version']);
  const bare = await nodeWithZeromq();
  const cluster = await Cluster.create({ file_roots: { base: [FILE_ROOTS] } });
  try {
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'm1' }]);
    const minion = cluster.minions.get('m1')!;
    const ping = timedMedian([...bin('salt'), '-c', cluster.masterDir, '*', 'test.ping']);
    const pid = minion.child.pid!;
    const minionIdleRssMiB = rssMiB(pid);
    const minionIdleParts = rssPartsMiB(pid);
    await settle();
    const minionIdleSettledRssMiB = rssMiB(pid);
    const minionIdleSettledParts = rssPartsMiB(pid);
    const synced = await cluster.salt('m1', 'saltutil.sync_modules', '--out', 'json');
    if (synced.code !== 0 || !synced.stdout.includes('modules.greeter')) {
      throw new BenchError('BENCH_PROCESS', `bench: saltutil.sync_modules failed (exit ${synced.code}): ${synced.stdout}${synced.stderr}`);
    }
    // A call of the synced TypeScript module: it is loaded, not only on disk.
    const hi = await cluster.salt('m1', 'greeter.hi', 'bob');
    if (hi.code !== 0) throw new BenchError('BENCH_PROCESS', `bench: greeter.hi failed after the sync: ${hi.stdout}${hi.stderr}`);
    const minionSyncedRssMiB = rssMiB(pid);
    await settle();
    return {
      saltVersionCpuMs: version.cpuMs,
      saltVersionPeakRssMiB: version.peakRssMiB,
      saltPingPeakRssMiB: ping.peakRssMiB,
      saltPingCpuMs: ping.cpuMs,
      minionIdleRssMiB,
      minionIdleParts,
      minionSyncedRssMiB,
      minionIdleSettledRssMiB,
      minionIdleSettledParts,
      minionSyncedSettledRssMiB: rssMiB(pid),
      nodeZeromqRssMiB: bare.rss,
      nodeZeromqParts: bare.parts,
    };
  } finally {
    await cluster.stop();
  }
}

/** Leaves the minion SETTLE_MS with nothing to do: a measurement window, not a wait for an event. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/** Lines for the report, each with the target. */
export function processBenchLines(r: ProcessBenchResult): string[] {
  return [
    `salt-minion RSS: ${r.minionIdleRssMiB.toFixed(1)} MiB idle (target <= 45), ${r.minionSyncedRssMiB.toFixed(1)} MiB after syncing a TypeScript and a JavaScript module (target <= 55), right after the last job`,
    `  after ${SETTLE_MS / 1000} s with no job: ${r.minionIdleSettledRssMiB.toFixed(1)} MiB idle, ${r.minionSyncedSettledRssMiB.toFixed(1)} MiB after syncing (V8 gives back the heap a job left)`,
    `  of which (settled) its own memory ${r.minionIdleSettledParts.anon.toFixed(1)} MiB and mapped files ${r.minionIdleSettledParts.file.toFixed(1)} MiB (the node binary's code it ran, shared by every node process); ` +
      `a bare node with zeromq loaded: ${r.nodeZeromqRssMiB.toFixed(1)} MiB (own ${r.nodeZeromqParts.anon.toFixed(1)}, files ${r.nodeZeromqParts.file.toFixed(1)})`,
    `salt '*' test.ping (1 minion): ${r.saltPingPeakRssMiB.toFixed(1)} MiB peak RSS (target <= 45), ${r.saltPingCpuMs.toFixed(0)} ms CPU`,
    `salt --version: ${r.saltVersionCpuMs.toFixed(0)} ms CPU (target <= 150), ${r.saltVersionPeakRssMiB.toFixed(1)} MiB peak RSS (medians of ${RUNS} runs under /usr/bin/time -v)`,
  ];
}

if (require.main === module) {
  void runProcessBench().then((r) => process.stdout.write(`${processBenchLines(r).join('\n')}\n`));
}
