/**
 * brine at scale: a real salt-master (bin/salt-master, a child process, auto_accept) and N real
 * `Minion` instances spread over simulator processes (bench/sim-worker.ts, about 2,000 each), the
 * real channel and the real plugin executor. The minions share a handful of RSA key pairs (the
 * master still does every sign-in's RSA work). Times `test.ping` to '*' through the LocalClient
 * (in its own process, bench/client-worker.ts, as the salt CLI is), from the publish request
 * until all N returns came off the event bus.
 */
import { existsSync, mkdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadMasterConfig, loadMinionConfig } from '../src/core/config';
import type { MinionSettings } from '../src/core/minion/job-loop';
import { minionSettings } from '../src/cli/minion-runtime';
import { Cluster, type Daemon } from '../scripts/cluster';
import { BenchError } from './bench-error';
import { IpcChild } from './ipc-child';
import { childPids, cpuSeconds, openFds, peakRssMiB, rssMiB, sumOver } from './procfs';
import { summarize, type Summary } from './report';
import { minionIdOf } from './minion-ids';
import type { SimWorkerSpec } from './sim-worker';

export interface JobTiming {
  /** Publish request sent until the master answered with the jid. */
  publishMs: number;
  /** Publish request sent until the first return arrived. */
  firstReturnMs: number;
  /** Publish request sent until 95 % of the N returns arrived. */
  p95ReturnMs: number;
  /** Publish request sent until the last of the N returns arrived (or the client gave up). */
  allReturnsMs: number;
  /** Returns that never arrived within the client's timeout. */
  lost: number;
}

/** The master's event loop, from bench/stall-probe.ts. */
export interface LoopStall {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  /** V8's heap in use, and the memory outside it that JavaScript objects hold (buffers, keys), when read. */
  heapUsedMiB?: number;
  /** V8's heap as it holds it, used or not. */
  heapTotalMiB?: number;
  externalMiB?: number;
}

export interface BrineScaleResult {
  minions: number;
  simulators: number;
  keyPool: number;
  keyInstallMs: number;
  masterStartMs: number;
  /** All N minions signed in, subscribed and announced (every simulator's Promise.all of Minion.start()). */
  signInMs: number;
  /** Sign-in requests that got no reply within auth_timeout and were sent again. */
  signInRetries: number;
  /** Minions whose start() failed (gave up). */
  signInFailed: number;
  masterCpuSignInS: number;
  /** The simulator processes' CPU over the storm: the minions' side of it, on the same cores. */
  simCpuSignInS: number;
  masterStallSignIn?: LoopStall;
  warmup: JobTiming;
  jobs: JobTiming[];
  jobsMs: Summary;
  lostReturns: number;
  /** Returns the minions had to send again (not acknowledged within return_retry_timer). */
  returnRetries: number;
  /** Publications the simulators opened themselves, and those handed on opened (0 without sharing). */
  publicationsOpened: number;
  publicationsShared: number;
  masterCpuJobsS: number;
  /** Master CPU per return in µs over the timed jobs. */
  masterCpuPerReturnUs: number;
  /** The simulators' CPU per return over the timed jobs (each minion's publication, job and return). */
  simCpuPerReturnUs: number;
  masterStallJobs?: LoopStall;
  masterRssAfterSignInMiB: number;
  masterRssMiB: number;
  masterPeakRssMiB: number;
  masterFds: number;
  /** Jobs the minions ran fewer than published to them: publications dropped (pub_hwm) or unread. */
  publicationsMissed: number;
  /** The re-sign-in storm after `salt-key -d` of one minion (--rotate). */
  rotation?: RotationResult;
  /** One job a second for a while (--soak). */
  soak?: SoakResult;
  pubHwm: number;
  zmqBacklog: number;
  minionSettings: Omit<MinionSettings, 'id' | 'pki_dir' | 'master_port'>;
}

/** `salt-key -d` of one minion rotates the publish key; the next job makes all others sign in again. */
export interface RotationResult {
  /** The job published right after the delete: publish -> last of the N-1 returns. */
  job: JobTiming;
  /** Minions that found the publication unreadable and signed in again for the new key. */
  reSignIns: number;
  /** Sign-ins during the storm (the deleted minion comes back too, auto_accept). */
  signIns: number;
  masterCpuS: number;
  masterStall?: LoopStall;
}

export interface SoakResult {
  seconds: number;
  jobs: number;
  jobsMs: Summary;
  lostReturns: number;
  /** When the first reading was taken (60 s, or half the soak when it is shorter). */
  markS: number;
  /** How many soak jobs had run by then. */
  jobsAtMark: number;
  rssAtMarkMiB: number;
  rssAtEndMiB: number;
  /** Where the master process's memory is at the mark and at the end: what of the growth is V8's heap. */
  atMark: SoakMemory;
  atEnd: SoakMemory;
  fdsAtMark: number;
  fdsAtEnd: number;
  masterCpuPerJobS: number;
}

/** The master's memory at one reading of the soak, apart from its publish process's. */
export interface SoakMemory {
  masterRssMiB: number;
  publisherRssMiB: number;
  /** V8's heap in use, the heap V8 holds (used or not), and the memory JavaScript holds outside it (the stall probe's reading). */
  heapUsedMiB?: number;
  heapTotalMiB?: number;
  externalMiB?: number;
}

export interface BrineScaleOptions {
  /** The minions' auth_timeout in seconds; undefined keeps Salt's default from the config loader. */
  authTimeout?: number;
  /** Measure the re-sign-in storm after `salt-key -d` of one minion. */
  rotate?: boolean;
  /** Run one job a second for this many seconds after the timed jobs. */
  soakSeconds?: number;
  /** Runs after the timed jobs while the master and minions are still up (the salt-api bench). */
  during?: (masterDir: string, minions: number) => Promise<void>;
  /** More master options (the job cache to write returns to). */
  masterConfig?: Record<string, unknown>;
  /** zmq_ports of the master and the simulated minions alike (default: the config's, 'node'). */
  zmqPorts?: 'node' | 'libzmq';
  /**
   * Each simulator process opens a publication once for all its minions (bench/shared-publication.ts);
   * false: every minion checks and opens its own, as a real one on its own machine does.
   */
  sharePublications?: boolean;
}

const JOB_TIMEOUT_MS = 130_000;
/**
 * Salt's default log_level: at `info` the master writes a line per return to its console, which
 * at 10,000 returns a job costs more than storing them.
 */
const MASTER_LOG_LEVEL = 'warning';
const PER_SIMULATOR = 2000;
/** Distinct minion key pairs: enough that the master never sees one key often in a row. */
export const KEY_POOL = 64;

async function timeJob(client: IpcChild, expect: number): Promise<JobTiming> {
  client.send({ type: 'job', expect });
  const msg = await client.expect('timing', JOB_TIMEOUT_MS, `no answer to a test.ping job to ${expect} minions`);
  return {
    publishMs: Number(msg.publishMs),
    firstReturnMs: Number(msg.firstReturnMs),
    p95ReturnMs: Number(msg.p95ReturnMs),
    allReturnsMs: Number(msg.allReturnsMs),
    lost: Number(msg.lost),
  };
}

/** Asks the master's stall probe for the period since the last ask; undefined if it does not answer. */
async function readStall(pid: number, file: string): Promise<LoopStall | undefined> {
  const before = existsSync(file) ? statSync(file).mtimeMs : 0;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    if (existsSync(file) && statSync(file).mtimeMs !== before) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as LoopStall;
      } catch {
        // Caught mid-write: read again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The master's node options: the stall probe, and a CPU profile when BRINE_BENCH_PROFILE names a folder. */
function masterNodeArgs(): string[] {
  return ['--require', join(__dirname, 'stall-probe.js'), ...profileArgs('master')];
}

/**
 * `--cpu-prof` into BRINE_BENCH_PROFILE/<who> when that names a folder: the master, and the
 * simulators too only with BRINE_BENCH_PROFILE_SIM=1 (V8's profiler in a process of 2,000 minions
 * can stall the sign-in storm past the bench's timeouts; `perf` suits them better).
 */
function profileArgs(who: 'master' | 'sim'): string[] {
  const dir = process.env.BRINE_BENCH_PROFILE;
  if (!dir || (who === 'sim' && process.env.BRINE_BENCH_PROFILE_SIM !== '1')) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${join(dir, who)}`];
}

/**
 * Resolves once `file` exists (the master's event intake socket, bound just before it serves
 * requests; at log level warning it prints no start-up line): a directory watch, no polling.
 */
function untilExists(file: string, master: Daemon, timeoutMs = 60_000): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  return new Promise((resolve, reject) => {
    const finish = (err?: Error) => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    };
    const check = () => existsSync(file) && finish();
    const watcher = watch(dirname(file), check);
    const timer = setTimeout(
      () => finish(new BenchError('BENCH_MASTER', `salt-master did not serve within ${timeoutMs} ms:\n${master.log}`)),
      timeoutMs,
    );
    void master.exited.then((code) => finish(new BenchError('BENCH_MASTER', `salt-master exited with ${code}:\n${master.log}`)));
    check();
  });
}

/** Sums one counter over the simulators' stats. */
async function simulatorStats(simulators: IpcChild[]): Promise<(field: string) => number> {
  for (const s of simulators) s.send({ type: 'stats' });
  const stats = await Promise.all(simulators.map((s) => s.expect('stats', 60_000, 'no stats')));
  return (field) => stats.reduce((n, m) => n + Number(m[field]), 0);
}

/** Runs one scale measurement for `count` minions with keys from `keyCache`, then stops everything. */
export async function runBrineScale(
  count: number,
  rounds: number,
  keyCache: string,
  options: BrineScaleOptions = {},
): Promise<BrineScaleResult> {
  const { authTimeout, during } = options;
  const pubHwm = 1000;
  // zmq_backlog as a large fleet would set it (Salt's default is 1000; Linux caps it at
  // net.core.somaxconn, 4096 here): in a cold storm of 10,000 the request port's accept queue
  // of 1,000 stayed full throughout and the kernel dropped about 200,000 handshakes a storm
  // (ListenOverflows), each one a connect put off by SYN retransmits past the minion's auth_timeout.
  const zmqBacklog = 4096;
  // connection_rate_limit 0: every simulated minion connects from 127.0.0.1, which the default
  // per-address limit (100 new connections a second) would turn into a queue of its own.
  const cluster = await Cluster.create({
    auto_accept: true,
    keysize: 2048,
    log_level_logfile: 'warning',
    pub_hwm: pubHwm,
    zmq_backlog: zmqBacklog,
    connection_rate_limit: 0,
    ...options.masterConfig,
    ...(options.zmqPorts ? { zmq_ports: options.zmqPorts } : {}),
  });
  const simulators: IpcChild[] = [];
  let client: IpcChild | undefined;
  try {
    const stallFile = join(cluster.root, 'master-stall.json');
    const intake = loadMasterConfig(cluster.masterDir).config.sock_dir;
    const masterStart = performance.now();
    const master = await cluster.startMaster({
      nodeArgs: masterNodeArgs(),
      env: { ...process.env, BRINE_BENCH_STALL_FILE: stallFile },
      logLevel: MASTER_LOG_LEVEL,
      ready: (daemon) => untilExists(join(intake, 'master_event_pull.ipc'), daemon),
    });
    const masterStartMs = performance.now() - masterStart;
    const masterPid = master.child.pid!;
    // The master and its publish process (Salt's split: see src/core/transport/publish-process.ts):
    // CPU, memory and open files are the sum of both.
    const masterPids = [masterPid, ...childPids(masterPid)];

    // The minion defaults (auth_timeout, retries, ...) come from the real config loader.
    const templateDir = join(cluster.root, 'minion-template');
    mkdirSync(templateDir, { recursive: true });
    const { config } = loadMinionConfig(templateDir, {
      root_dir: join(cluster.root, 'minions'),
      master: '127.0.0.1',
      master_port: cluster.retPort,
      ...(options.zmqPorts ? { zmq_ports: options.zmqPorts } : {}),
    });
    const { id: _id, pki_dir: _pki, master_port: _port, ...daemon } = minionSettings({ ...config, id: 'template' });
    const base: Omit<MinionSettings, 'id' | 'pki_dir' | 'master_port'> = {
      ...daemon,
      master: '127.0.0.1',
      keysize: 2048,
      auth_timeout: authTimeout ?? config.auth_timeout,
    };

    const keysStart = performance.now();
    const workers = Math.ceil(count / PER_SIMULATOR);
    for (let w = 0; w < workers; w++) {
      const first = Math.floor((count * w) / workers);
      const spec: SimWorkerSpec = {
        first,
        count: Math.floor((count * (w + 1)) / workers) - first,
        keyCache,
        keyPool: KEY_POOL,
        root: join(cluster.root, 'minions'),
        settings: { ...base, master_port: cluster.retPort },
        sharePublications: options.sharePublications ?? true,
      };
      simulators.push(new IpcChild(`simulator ${w}`, 'sim-worker', [JSON.stringify(spec)], undefined, profileArgs('sim')));
    }
    await Promise.all(simulators.map((s) => s.expect('loaded', 300_000, 'plugins and minion keys not loaded')));
    const keyInstallMs = performance.now() - keysStart;

    const simPids = simulators.map((s) => s.pid);
    const masterCpu0 = sumOver(masterPids, cpuSeconds);
    const simCpu0 = sumOver(simPids, cpuSeconds);
    await readStall(masterPid, stallFile);
    const signInStart = performance.now();
    for (const s of simulators) s.send({ type: 'start' });
    const signedIn = await Promise.all(simulators.map((s) => s.expect('signed-in', 900_000, 'minions not all signed in')));
    const signInMs = performance.now() - signInStart;
    const masterCpuSignInS = sumOver(masterPids, cpuSeconds) - masterCpu0;
    const simCpuSignInS = sumOver(simPids, cpuSeconds) - simCpu0;
    const masterStallSignIn = await readStall(masterPid, stallFile);
    const masterRssAfterSignInMiB = sumOver(masterPids, rssMiB);
    const signInFailed = signedIn.reduce((n, m) => n + Number(m.failed), 0);
    if (signInFailed === count) throw new Error(`no minion signed in: ${String(signedIn.find((m) => m.firstError)?.firstError)}`);
    if (signInFailed > 0)
      process.stderr.write(
        `[bench] ${signInFailed} minions gave up signing in: ${String(signedIn.find((m) => m.firstError)?.firstError)}\n`,
      );

    client = new IpcChild('job client', 'client-worker', [cluster.masterDir]);
    await client.expect('ready', 60_000, 'not connected to the master event bus');
    const expect = count - signInFailed;
    const warmup = await timeJob(client, expect);
    const masterCpu1 = sumOver(masterPids, cpuSeconds);
    const simCpu1 = sumOver(simPids, cpuSeconds);
    await readStall(masterPid, stallFile);
    const jobs: JobTiming[] = [];
    for (let r = 0; r < rounds; r++) jobs.push(await timeJob(client, expect));
    const masterCpuJobsS = sumOver(masterPids, cpuSeconds) - masterCpu1;
    const simCpuJobsS = sumOver(simPids, cpuSeconds) - simCpu1;
    const masterStallJobs = await readStall(masterPid, stallFile);
    const masterRssMiB = sumOver(masterPids, rssMiB);
    const masterFds = sumOver(masterPids, openFds);
    const sum = await simulatorStats(simulators);
    const publicationsMissed = (rounds + 1) * expect - sum('jobsRun');
    if (during) await during(cluster.masterDir, expect);

    let soak: SoakResult | undefined;
    if (options.soakSeconds) {
      await readStall(masterPid, stallFile);
      // The stall probe's heap snapshots are for the soak's readings alone (stall-probe.ts).
      const snapshots = process.env.BRINE_BENCH_HEAP_SNAPSHOTS;
      if (snapshots) writeFileSync(join(snapshots, 'soak'), '');
      soak = await runSoak(client, expect, options.soakSeconds, masterPids, () => readStall(masterPid, stallFile));
    }

    let rotation: RotationResult | undefined;
    if (options.rotate) {
      const before = await simulatorStats(simulators);
      const cpu0 = sumOver(masterPids, cpuSeconds);
      await readStall(masterPid, stallFile);
      // The real salt-key, as a user would: the master sees it through its key-directory watch
      // (or the check before the next publish) and rotates the publish key.
      const del = await cluster.saltKey('-d', minionIdOf(0), '-y');
      if (del.code !== 0) throw new BenchError('BENCH_SALT_KEY', `salt-key -d failed: ${del.stderr}`);
      const job = await timeJob(client, expect - 1);
      const cpuS = sumOver(masterPids, cpuSeconds) - cpu0;
      const stall = await readStall(masterPid, stallFile);
      const after = await simulatorStats(simulators);
      rotation = {
        job,
        reSignIns: after('rekeys') - before('rekeys'),
        signIns: after('signIns') - before('signIns'),
        masterCpuS: cpuS,
        masterStall: stall,
      };
    }
    return {
      minions: count,
      simulators: workers,
      keyPool: Math.min(KEY_POOL, count),
      keyInstallMs,
      masterStartMs,
      signInMs,
      signInRetries: sum('retries'),
      signInFailed,
      masterCpuSignInS,
      simCpuSignInS,
      masterStallSignIn,
      warmup,
      jobs,
      jobsMs: summarize(jobs.map((j) => j.allReturnsMs)),
      lostReturns: warmup.lost + jobs.reduce((n, j) => n + j.lost, 0),
      returnRetries: sum('returnRetries'),
      publicationsOpened: sum('publicationsOpened'),
      publicationsShared: sum('publicationsShared'),
      masterCpuJobsS,
      masterCpuPerReturnUs: (masterCpuJobsS / (rounds * expect)) * 1e6,
      simCpuPerReturnUs: (simCpuJobsS / (rounds * expect)) * 1e6,
      masterStallJobs,
      masterRssAfterSignInMiB,
      masterRssMiB,
      masterPeakRssMiB: sumOver(masterPids, peakRssMiB),
      masterFds,
      publicationsMissed,
      rotation,
      soak,
      pubHwm,
      zmqBacklog,
      minionSettings: base,
    };
  } finally {
    await client?.stop();
    for (const s of simulators) s.stopGracefully();
    await Promise.allSettled(simulators.map((s) => s.exited));
    await cluster.stop();
  }
}

/**
 * One test.ping to '*' a second for `seconds` (a job that takes longer delays the next one): the
 * master's RSS and open files after the first minute (or half the soak, if shorter) and at the end.
 */
async function runSoak(
  client: IpcChild,
  expect: number,
  seconds: number,
  masterPids: number[],
  stall: () => Promise<LoopStall | undefined>,
): Promise<SoakResult> {
  const markS = Math.min(60, seconds / 2);
  const start = performance.now();
  const cpu0 = sumOver(masterPids, cpuSeconds);
  const jobs: JobTiming[] = [];
  const [masterPid, ...publisher] = masterPids;
  const memory = async (): Promise<SoakMemory> => {
    const probe = await stall();
    return {
      masterRssMiB: rssMiB(masterPid),
      publisherRssMiB: sumOver(publisher, rssMiB),
      heapUsedMiB: probe?.heapUsedMiB,
      heapTotalMiB: probe?.heapTotalMiB,
      externalMiB: probe?.externalMiB,
    };
  };
  let mark: { rss: number; fds: number; jobs: number; memory: SoakMemory } | undefined;
  for (let n = 0; performance.now() - start < seconds * 1000; n++) {
    try {
      jobs.push(await timeJob(client, expect));
    } catch (err) {
      const at = ((performance.now() - start) / 1000).toFixed(0);
      throw new BenchError(
        'BENCH_SOAK',
        `soak: job ${n + 1} failed ${at} s in (master RSS ${sumOver(masterPids, rssMiB).toFixed(0)} MiB): ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    if (!mark && performance.now() - start >= markS * 1000) {
      mark = { rss: sumOver(masterPids, rssMiB), fds: sumOver(masterPids, openFds), jobs: jobs.length, memory: await memory() };
    }
    // The pace of the soak, not a synchronisation: the next job starts on the next second.
    const next = start + (n + 1) * 1000;
    if (next > performance.now()) await new Promise((resolve) => setTimeout(resolve, next - performance.now()));
  }
  mark ??= { rss: sumOver(masterPids, rssMiB), fds: sumOver(masterPids, openFds), jobs: jobs.length, memory: await memory() };
  const rssAtEndMiB = sumOver(masterPids, rssMiB);
  const atEnd = await memory();
  return {
    seconds,
    jobs: jobs.length,
    jobsMs: summarize(jobs.map((j) => j.allReturnsMs)),
    lostReturns: jobs.reduce((n, j) => n + j.lost, 0),
    markS,
    jobsAtMark: mark.jobs,
    rssAtMarkMiB: mark.rss,
    rssAtEndMiB,
    atMark: mark.memory,
    atEnd,
    fdsAtMark: mark.fds,
    fdsAtEnd: sumOver(masterPids, openFds),
    masterCpuPerJobS: (sumOver(masterPids, cpuSeconds) - cpu0) / jobs.length,
  };
}
