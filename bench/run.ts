/**
 * `npm run bench [-- --minions 100,1000,3000] [--jobs 5] [--auth-timeout SECONDS] [--skip-micro]`
 * `npm run bench -- --minions 5000,10000 --rotate --soak 600 --real 100` for the large runs:
 * `--rotate` measures the re-sign-in storm after `salt-key -d` of one minion, `--soak SECONDS` one
 * job a second at the largest N (RSS and open files after the first minute and at the end),
 * `--real N` N real salt-minion processes. Without them the default run stays a few minutes.
 *
 * 1. Micro: ops/s of the protocol's hot paths (bench/micro.ts).
 * 2. Scale: N in-process minions against a real salt-master child process answering test.ping,
 *    and a raw-ZeroMQ baseline of the same traffic shape for the same N.
 * 3. salt-api at 20 minions (bench/api-bench.ts): POST / local test.ping against the CLI's time
 *    for the same job, and /events delivery against a direct bus listener (`--skip-api` skips it).
 * 4. States: salt-call --local state.apply of the corpus's larger cases, whole-process CPU
 *    (bench/state-bench.ts), and 20 minions applying 50 file states each through a master, wall
 *    time (bench/fleet-state-bench.ts), each against the reference Salt 3007 when installed.
 *
 * Prints tables and writes bench/results.json (machine, date, every figure).
 */
import { BenchError } from './bench-error';
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { BrineError } from '../src/core/errors';
import { REPO } from '../scripts/cluster';
import { runBaseline, type BaselineResult } from './baseline';
import { KEY_POOL, runBrineScale, type BrineScaleResult } from './brine-scale';
import { ensureKeyCache, type KeyCacheResult } from './keys';
import { runMicroBench, type MicroResult } from './micro';
import { runJobCacheBench, type BenchRow } from './job-cache-bench';
import { startThrowawayPostgres } from './pg-sandbox';
import { renderBenchLine, runRenderBench } from './render-bench';
import { runStateBench, stateBenchLines } from './state-bench';
import { processBenchLines, runProcessBench, type ProcessBenchResult } from './process-bench';
import { FLEET_MINIONS, fleetStateLines, runFleetStateBench, type FleetStateResult } from './fleet-state-bench';
import { fmtInt, fmtMs, summarize, table } from './report';
import { runApiBench, type ApiBenchResult } from './api-bench';
import { runRealMinions, type RealMinionsResult } from './real-minions';

interface Options {
  minions: number[];
  jobs: number;
  micro: boolean;
  render: boolean;
  /** salt-call --local state.apply of the corpus's larger cases, whole-process CPU (brine vs Salt 3007). */
  state: boolean;
  /** 20 minions applying 50 file states each through a master, wall time (brine vs Salt 3007). */
  fleetState: boolean;
  /** A real salt-minion's RSS idle and after a sync, the salt CLI's peak RSS, salt --version's CPU. */
  processes: boolean;
  /** Returns per second written to the job cache (SQLite and PostgreSQL). */
  jobCache: boolean;
  /** The minions' auth_timeout in seconds; undefined keeps Salt's default from the config loader. */
  authTimeout?: number;
  /** salt-api: POST / and /events latency at 20 minions, against the CLI and a direct bus listener. */
  api: boolean;
  /** The re-sign-in storm after `salt-key -d` of one minion, at every N. */
  rotate: boolean;
  /** Seconds of one job a second at the largest N (0: none). */
  soak: number;
  /** Real salt-minion processes (0: none). */
  real: number;
  /**
   * The scale runs' job cache: SQLite (Salt's local_cache, the default), a throwaway PostgreSQL, or
   * none (`job_cache: false`: no return stored, the figure the other two are compared with).
   */
  scaleJobCache: 'sqlite' | 'postgres' | 'none';
  /**
   * zmq_ports of the scale runs' master and simulated minions: ZMTP in plain Node (the default)
   * or libzmq's sockets.
   */
  zmqPorts: 'node' | 'libzmq';
  /**
   * Every simulated minion checks and opens each publication itself, as a real minion does on its
   * own machine; by default a simulator process opens it once for all its minions
   * (bench/shared-publication.ts).
   */
  ownPublicationChecks: boolean;
}

const USAGE =
  'usage: npm run bench -- [--minions 100,1000] [--jobs 5] [--auth-timeout SECONDS] [--rotate] [--soak SECONDS] [--real N] ' +
  '[--job-cache sqlite|postgres|none] [--zmq-ports node|libzmq] [--own-publication-checks] [--skip-micro] [--skip-render] [--skip-state] [--skip-fleet-state] [--skip-processes] [--skip-job-cache] [--skip-api]';

function badFlag(message: string): BrineError {
  return new BenchError('BAD_BENCH_FLAG', message, { hint: USAGE });
}

export function parseArgs(argv: string[]): Options {
  const options: Options = {
    minions: [100, 1000],
    jobs: 5,
    micro: true,
    render: true,
    state: true,
    fleetState: true,
    processes: true,
    jobCache: true,
    api: true,
    rotate: false,
    soak: 0,
    real: 0,
    scaleJobCache: 'sqlite',
    zmqPorts: 'node',
    ownPublicationChecks: false,
  };
  const count = (name: string, v: string, max: number): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
      throw badFlag(`${name} takes a whole number between 1 and ${max}, not '${v}'`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw badFlag(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--minions': {
        const list = value()
          .split(',')
          .map((s) => s.trim());
        if (list.some((s) => !/^\d+$/.test(s) || Number(s) < 1 || Number(s) > 20_000)) {
          throw badFlag(`--minions takes a comma list of counts between 1 and 20000, not '${list.join(',')}'`);
        }
        options.minions = list.map(Number);
        break;
      }
      case '--jobs': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100) throw badFlag(`--jobs takes a count between 1 and 100, not '${v}'`);
        options.jobs = Number(v);
        break;
      }
      case '--auth-timeout': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 600)
          throw badFlag(`--auth-timeout takes seconds between 1 and 600, not '${v}'`);
        options.authTimeout = Number(v);
        break;
      }
      case '--rotate':
        options.rotate = true;
        break;
      case '--soak':
        options.soak = count('--soak', value(), 86_400);
        break;
      case '--real':
        options.real = count('--real', value(), 1000);
        break;
      case '--job-cache': {
        const v = value();
        if (v !== 'sqlite' && v !== 'postgres' && v !== 'none') throw badFlag(`--job-cache takes sqlite, postgres or none, not '${v}'`);
        options.scaleJobCache = v;
        break;
      }
      case '--zmq-ports': {
        const v = value();
        if (v !== 'node' && v !== 'libzmq') throw badFlag(`--zmq-ports takes node or libzmq, not '${v}'`);
        options.zmqPorts = v;
        break;
      }
      case '--own-publication-checks':
        options.ownPublicationChecks = true;
        break;
      case '--skip-job-cache':
        options.jobCache = false;
        break;
      case '--skip-api':
        options.api = false;
        break;
      case '--skip-render':
        options.render = false;
        break;
      case '--skip-state':
        options.state = false;
        break;
      case '--skip-processes':
        options.processes = false;
        break;
      case '--skip-fleet-state':
        options.fleetState = false;
        break;
      case '--skip-micro':
        options.micro = false;
        break;
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
        break;
      default:
        throw badFlag(`unknown option '${arg}'`);
    }
  }
  return options;
}

function progress(text: string): void {
  process.stderr.write(`[bench] ${text}\n`);
}

function machine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    totalMemMiB: Math.round(os.totalmem() / 1024 / 1024),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    loadAvgAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

interface ScaleRow {
  minions: number;
  brine: BrineScaleResult;
  baseline: BaselineResult;
  ratio: number;
}

function printJobCache(rows: BenchRow[]): void {
  process.stdout.write('\nJob cache: returns per second written\n\n');
  process.stdout.write(
    table(
      ['case', 'returns/s'],
      rows.map((r) => [r.name, fmtInt(r.opsPerSec)]),
    ),
  );
}

function printMicro(results: MicroResult[]): void {
  process.stdout.write('\nMicro-benchmarks (one core, 2048-bit keys)\n\n');
  process.stdout.write(
    table(
      ['operation', 'ops/s'],
      results.map((r) => [r.name, fmtInt(r.opsPerSec)]),
    ),
  );
}

function printScale(
  rows: ScaleRow[],
  keys: KeyCacheResult,
  jobs: number,
  jobCache: Options['scaleJobCache'],
  ports: Options['zmqPorts'],
): void {
  process.stdout.write(`\nScale: test.ping to '*', ${jobs} timed jobs after one warm-up (publish -> last return, ms)\n\n`);
  process.stdout.write(
    table(
      ['minions', 'brine median', 'p95', 'max', 'raw zmq median', 'p95', 'max', 'brine / raw', 'lost returns'],
      rows.map((r) => [
        String(r.minions),
        fmtMs(r.brine.jobsMs.median),
        fmtMs(r.brine.jobsMs.p95),
        fmtMs(r.brine.jobsMs.max),
        fmtMs(r.baseline.jobsMs.median),
        fmtMs(r.baseline.jobsMs.p95),
        fmtMs(r.baseline.jobsMs.max),
        `${r.ratio.toFixed(2)}x`,
        String(r.brine.lostReturns),
      ]),
    ),
  );
  process.stdout.write('\nbrine job breakdown (medians, ms) and the master process\n\n');
  const med = (xs: number[]) => summarize(xs).median;
  process.stdout.write(
    table(
      [
        'minions',
        'publish ack',
        'first return',
        '95% returns',
        'all returns',
        'master CPU/return us',
        'sim CPU/return us',
        'loop stall max ms',
        'master RSS MiB',
        'peak RSS MiB',
        'JS heap MiB',
        'external MiB',
        'master fds',
        'raw server RSS MiB',
        'raw server CPU/reply us',
        'publications missed',
      ],
      rows.map((r) => [
        String(r.minions),
        fmtMs(med(r.brine.jobs.map((j) => j.publishMs))),
        fmtMs(med(r.brine.jobs.map((j) => j.firstReturnMs))),
        fmtMs(med(r.brine.jobs.map((j) => j.p95ReturnMs))),
        fmtMs(r.brine.jobsMs.median),
        r.brine.masterCpuPerReturnUs.toFixed(0),
        r.brine.simCpuPerReturnUs.toFixed(0),
        r.brine.masterStallJobs ? fmtMs(r.brine.masterStallJobs.maxMs) : '-',
        r.brine.masterRssMiB.toFixed(1),
        r.brine.masterPeakRssMiB.toFixed(1),
        r.brine.masterStallJobs?.heapUsedMiB?.toFixed(1) ?? '-',
        r.brine.masterStallJobs?.externalMiB?.toFixed(1) ?? '-',
        String(r.brine.masterFds),
        r.baseline.serverRssMiB.toFixed(1),
        r.baseline.serverCpuPerReplyUs.toFixed(0),
        String(r.brine.publicationsMissed),
      ]),
    ),
  );
  process.stdout.write('\nSign-in of all minions at once (a cold auth storm: new keys, auto_accept)\n\n');
  process.stdout.write(
    table(
      [
        'minions',
        'simulators',
        'sign-in all ms',
        'retries',
        'gave up',
        'master CPU s',
        'sim CPU s',
        'loop stall max ms',
        'master RSS after MiB',
        'master start ms',
        'setup ms',
        'raw setup ms',
      ],
      rows.map((r) => [
        String(r.minions),
        String(r.brine.simulators),
        fmtMs(r.brine.signInMs),
        String(r.brine.signInRetries),
        String(r.brine.signInFailed),
        r.brine.masterCpuSignInS.toFixed(2),
        r.brine.simCpuSignInS.toFixed(2),
        r.brine.masterStallSignIn ? fmtMs(r.brine.masterStallSignIn.maxMs) : '-',
        r.brine.masterRssAfterSignInMiB.toFixed(1),
        fmtMs(r.brine.masterStartMs),
        fmtMs(r.brine.keyInstallMs),
        fmtMs(r.baseline.setupMs),
      ]),
    ),
  );
  const rotated = rows.filter((r) => r.brine.rotation);
  if (rotated.length > 0) {
    process.stdout.write(
      `\nRe-sign-in storm: salt-key -d of one minion rotates the publish key; the next job (to the N-1 others) completes\n\n`,
    );
    process.stdout.write(
      table(
        ['minions', 'job all returns ms', 'lost', 're-sign-ins', 'sign-ins', 'master CPU s', 'loop stall max ms'],
        rotated.map((r) => {
          const x = r.brine.rotation!;
          return [
            String(r.minions),
            fmtMs(x.job.allReturnsMs),
            String(x.job.lost),
            String(x.reSignIns),
            String(x.signIns),
            x.masterCpuS.toFixed(2),
            x.masterStall ? fmtMs(x.masterStall.maxMs) : '-',
          ];
        }),
      ),
    );
  }
  const soaked = rows.filter((r) => r.brine.soak);
  if (soaked.length > 0) {
    process.stdout.write(`\nSoak: one test.ping a second\n\n`);
    process.stdout.write(
      table(
        [
          'minions',
          'seconds',
          'jobs',
          'median ms',
          'max ms',
          'lost',
          'RSS at mark MiB',
          'RSS at end MiB',
          'fds at mark',
          'fds at end',
          'mark s',
          'jobs at mark',
          'raw RSS at mark MiB',
          'raw RSS at end MiB',
        ],
        soaked.map((r) => {
          const x = r.brine.soak!;
          return [
            String(r.minions),
            String(x.seconds),
            String(x.jobs),
            fmtMs(x.jobsMs.median),
            fmtMs(x.jobsMs.max),
            String(x.lostReturns),
            x.rssAtMarkMiB.toFixed(1),
            x.rssAtEndMiB.toFixed(1),
            String(x.fdsAtMark),
            String(x.fdsAtEnd),
            String(x.markS),
            String(x.jobsAtMark),
            r.baseline.soak?.rssAtMarkMiB.toFixed(1) ?? '-',
            r.baseline.soak?.rssAtEndMiB.toFixed(1) ?? '-',
          ];
        }),
      ),
    );
    process.stdout.write(
      'raw RSS: the raw-ZeroMQ server (and its publish process) after as many rounds as the soak ran jobs, back to back, ' +
        'read after the same number of jobs as the mark and at the end: ZeroMQ alone grows this much for the same traffic.\n',
    );
    const mib = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(1));
    process.stdout.write(`\nSoak: where the memory is, at the mark and at the end (MiB)\n\n`);
    process.stdout.write(
      table(
        ['minions', 'master RSS', 'publish process RSS', 'V8 heap used', 'V8 heap held', 'external'],
        soaked.map((r) => {
          const { atMark, atEnd } = r.brine.soak!;
          const pair = (a: number | undefined, b: number | undefined) => `${mib(a)} -> ${mib(b)}`;
          return [
            String(r.minions),
            pair(atMark.masterRssMiB, atEnd.masterRssMiB),
            pair(atMark.publisherRssMiB, atEnd.publisherRssMiB),
            pair(atMark.heapUsedMiB, atEnd.heapUsedMiB),
            pair(atMark.heapTotalMiB, atEnd.heapTotalMiB),
            pair(atMark.externalMiB, atEnd.externalMiB),
          ];
        }),
      ),
    );
    process.stdout.write(
      "V8 heap used, held and external: the master process's, from the stall probe (held: V8's heap used or not; external: what JavaScript holds outside it, buffers and keys).\n",
    );
  }
  const settings = rows[0]?.brine.minionSettings;
  if (settings) {
    process.stdout.write(
      `\nMinion settings: auth_timeout ${settings.auth_timeout} s, auth_tries ${settings.auth_tries}, return_retry_timer ${settings.return_retry_timer} s (to return_retry_timer_max ${settings.return_retry_timer_max ?? 0} s), ` +
        `recon_default ${settings.recon_default} ms (randomize ${settings.recon_randomize}), random_reauth_delay ${settings.random_reauth_delay ?? 10} s; ` +
        `master pub_hwm ${rows[0].brine.pubHwm}, zmq_backlog ${rows[0].brine.zmqBacklog}, zmq_ports ${ports} (master and minions), connection_rate_limit 0 (every simulated minion connects from 127.0.0.1), log_level warning, ` +
        (jobCache === 'none' ? 'job_cache false (no return stored). ' : `master_job_cache ${jobCache}. `) +
        `Returns sent again: ${rows.map((r) => `${r.brine.returnRetries} at N=${r.minions}`).join(', ')}.\n`,
    );
  }
  process.stdout.write(
    `Minion keys: ${KEY_POOL} key pairs shared round-robin (${keys.reused} reused, ${keys.generated} generated in ${(keys.ms / 1000).toFixed(1)} s, cache ${keys.dir}); ` +
      `each simulator process loads the built-in plugins once (real Executor).\n`,
  );
  const shared = rows.reduce((n, r) => n + r.brine.publicationsShared, 0);
  const opened = rows.reduce((n, r) => n + r.brine.publicationsOpened, 0);
  process.stdout.write(
    shared > 0
      ? `Publications: each simulator process checked and opened a publication once for its minions (${opened} openings, ${shared} handed on), ` +
          `what each minion would have opened itself on its own machine; --own-publication-checks makes every minion do it.\n`
      : 'Publications: every simulated minion checked and opened each publication itself (--own-publication-checks).\n',
  );
}

/** The issue's salt-api figures are for 20 minions. */
const API_MINIONS = 20;

function printApi(r: ApiBenchResult & { cliMs: ApiBenchResult['postMs'] }): void {
  process.stdout.write(
    `\nsalt-api at ${r.minions} minions (ms; the CLI's time for the same job and a direct bus listener are the baselines)\n\n`,
  );
  process.stdout.write(
    table(
      ['measure', 'median', 'min', 'max', 'baseline median', 'difference'],
      [
        [
          "POST / local test.ping '*'",
          fmtMs(r.postMs.median),
          fmtMs(r.postMs.min),
          fmtMs(r.postMs.max),
          fmtMs(r.cliMs.median),
          fmtMs(r.postMs.median - r.cliMs.median),
        ],
        [
          '/events after the bus',
          fmtMs(r.eventDelayMs.median),
          fmtMs(r.eventDelayMs.min),
          fmtMs(r.eventDelayMs.max),
          '0',
          fmtMs(r.eventDelayMs.median),
        ],
      ],
    ),
  );
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = new Date();
  const info = machine();
  progress(`${info.cpus} x ${info.cpuModel}, ${info.node}, load ${info.loadAvgAtStart.join(' ')}`);

  let micro: MicroResult[] = [];
  if (options.micro) {
    progress('micro-benchmarks');
    micro = await runMicroBench();
    printMicro(micro);
  }

  let render: Awaited<ReturnType<typeof runRenderBench>> | undefined;
  if (options.render) {
    progress('render: salt-call --local state.show_sls of a 200-line SLS, whole-process CPU (brine vs Salt 3007)');
    render = await runRenderBench();
    process.stdout.write(`\n${renderBenchLine(render)}\n`);
  }

  let state: ReturnType<typeof runStateBench> | undefined;
  if (options.state) {
    progress("state: salt-call --local state.apply of the corpus's larger cases, whole-process CPU (brine vs Salt 3007)");
    state = runStateBench();
    process.stdout.write(`\n${stateBenchLines(state).join('\n')}\n`);
  }

  let fleetState: FleetStateResult | undefined;
  if (options.fleetState) {
    progress(`fleet state: ${FLEET_MINIONS} minions applying 50 file states each through a master, wall time (brine vs Salt 3007)`);
    fleetState = await runFleetStateBench();
    process.stdout.write(`\n${fleetStateLines(fleetState).join('\n')}\n`);
  }

  let processes: ProcessBenchResult | undefined;
  if (options.processes) {
    progress('processes: salt-minion RSS idle and after a sync, salt CLI peak RSS, salt --version CPU');
    processes = await runProcessBench();
    process.stdout.write(`\n${processBenchLines(processes).join('\n')}\n`);
  }

  let jobCache: BenchRow[] = [];
  if (options.jobCache) {
    progress('job cache: returns per second written (SQLite, PostgreSQL)');
    jobCache = await runJobCacheBench();
    printJobCache(jobCache);
  }

  progress(`minion keys: making sure ${KEY_POOL} cached 2048-bit keys exist`);
  const keys = await ensureKeyCache(KEY_POOL, 2048);
  const rows: ScaleRow[] = [];
  let api: (ApiBenchResult & { cliMs: ApiBenchResult['postMs'] }) | undefined;
  // --job-cache postgres: every scale run's master writes its returns to one throwaway server.
  const postgres = options.scaleJobCache === 'postgres' && options.minions.length > 0 ? await startThrowawayPostgres() : undefined;
  const jobCacheConfig = postgres
    ? {
        master_job_cache: 'postgres',
        postgres: {
          host: postgres.options.host,
          port: postgres.options.port,
          user: postgres.options.user,
          pass: postgres.options.password,
          db: postgres.options.database,
        },
      }
    : options.scaleJobCache === 'none'
      ? { job_cache: false }
      : {};
  try {
    for (const n of options.minions) {
      progress(`brine: ${n} minions (job cache: ${options.scaleJobCache})`);
      const soakSeconds = n === Math.max(...options.minions) ? options.soak : 0;
      const brine = await runBrineScale(n, options.jobs, keys.dir, {
        authTimeout: options.authTimeout,
        rotate: options.rotate,
        soakSeconds,
        masterConfig: jobCacheConfig,
        zmqPorts: options.zmqPorts,
        sharePublications: !options.ownPublicationChecks,
      });
      progress(
        `brine: ${n} minions signed in in ${fmtMs(brine.signInMs)} ms, median job ${fmtMs(brine.jobsMs.median)} ms, ${brine.masterCpuPerReturnUs.toFixed(0)} us master CPU per return`,
      );
      progress(`raw zeromq: ${n} subscribers`);
      const soaked = brine.soak;
      const baseline = await runBaseline(n, options.jobs, soaked ? { markJobs: soaked.jobsAtMark, jobs: soaked.jobs } : undefined);
      progress(`raw zeromq: median ${fmtMs(baseline.jobsMs.median)} ms`);
      rows.push({ minions: n, brine, baseline, ratio: brine.jobsMs.median / baseline.jobsMs.median });
    }
  } finally {
    await postgres?.stop();
  }
  if (options.api) {
    progress(`salt-api: POST / test.ping to ${API_MINIONS} minions and /events, against the CLI and the bus`);
    let apiResult: ApiBenchResult | undefined;
    const cli = await runBrineScale(API_MINIONS, options.jobs, keys.dir, {
      authTimeout: options.authTimeout,
      during: async (masterDir, minions) => {
        apiResult = await runApiBench(masterDir, minions, options.jobs);
      },
    });
    if (apiResult) {
      api = { ...apiResult, cliMs: cli.jobsMs };
      printApi(api);
    }
  }
  printScale(rows, keys, options.jobs, options.scaleJobCache, options.zmqPorts);

  let real: RealMinionsResult | undefined;
  if (options.real > 0) {
    progress(`real: ${options.real} salt-minion processes, salt '*' test.ping`);
    real = await runRealMinions(options.real, options.jobs);
    process.stdout.write(`\nReal salt-minion processes on loopback: salt '*' test.ping, whole CLI (ms)\n\n`);
    process.stdout.write(
      table(
        ['minions', 'start all ms', 'median', 'p95', 'max', 'missing', 'minion RSS median MiB', 'max', 'master RSS MiB'],
        [
          [
            String(real.minions),
            fmtMs(real.startMs),
            fmtMs(real.pingMs.median),
            fmtMs(real.pingMs.p95),
            fmtMs(real.pingMs.max),
            String(real.missing),
            real.minionRssMiB.median.toFixed(1),
            real.minionRssMiB.max.toFixed(1),
            real.masterRssMiB.toFixed(1),
          ],
        ],
      ),
    );
  }

  const results = {
    date: started.toISOString(),
    durationS: Number(((Date.now() - started.getTime()) / 1000).toFixed(1)),
    machine: { ...info, loadAvgAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))) },
    options,
    micro,
    render,
    state,
    fleetState,
    processes,
    jobCache,
    api,
    real,
    scale: {
      executor: 'real Executor, built-in plugins loaded once per simulator process and shared by its minions',
      keys: { ...keys, sharedPairs: KEY_POOL },
      rows,
    },
  };
  const file = join(REPO, 'bench', 'results.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nresults written to ${file} (${results.durationS} s in all)\n`);
}

main().catch((err) => {
  if (err instanceof BrineError && err.code === 'BAD_BENCH_FLAG') {
    process.stderr.write(`bench: ${err.message}\n${err.hint}\n`);
    process.exit(2);
  }
  process.stderr.write(`bench failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
