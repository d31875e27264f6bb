/**
 * brine at scale: a real salt-master (bin/salt-master, a child process, auto_accept) and N real
 * `Minion` instances in this process, each with its own RSA key and pki_dir, the real channel and
 * the real plugin executor (built-in plugins loaded once and shared). Times `test.ping` to '*'
 * through the LocalClient (in its own process, bench/client-worker.ts, as the salt CLI is), from
 * the publish request until all N returns came off the event bus.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadMinionConfig } from '../src/core/config';
import { createLogging } from '../src/core/log';
import { Minion, type JobExecutor, type MinionGrains, type MinionSettings } from '../src/core/minion/job-loop';
import { Cluster } from '../scripts/cluster';
import { IpcChild } from './ipc-child';
import { installMinionKey } from './keys';
import { cpuSeconds, ownCpuSeconds, peakRssMiB, rssMiB } from './procfs';
import { summarize, type Summary } from './report';
import { minionSettings } from '../src/cli/minion-runtime';

/** What every simulated minion shares: the executor and grains of one plugin load. */
export interface SharedMinionRuntime {
  executor: JobExecutor;
  grains: MinionGrains;
}

export interface JobTiming {
  /** Publish request sent until the master answered with the jid. */
  publishMs: number;
  /** Publish request sent until the first return arrived. */
  firstReturnMs: number;
  /** Publish request sent until the last of the N returns arrived. */
  allReturnsMs: number;
}

export interface BrineScaleResult {
  minions: number;
  keyInstallMs: number;
  masterStartMs: number;
  /** All N minions signed in, subscribed and announced (Promise.all of Minion.start()). */
  signInMs: number;
  /** Sign-in requests that got no reply within auth_timeout and were sent again. */
  signInRetries: number;
  masterCpuSignInS: number;
  benchCpuSignInS: number;
  warmup: JobTiming;
  jobs: JobTiming[];
  jobsMs: Summary;
  masterCpuJobsS: number;
  benchCpuJobsS: number;
  masterRssAfterSignInMiB: number;
  masterRssMiB: number;
  masterPeakRssMiB: number;
  benchRssMiB: number;
  minionSettings: Omit<MinionSettings, 'id' | 'pki_dir' | 'master_port'>;
}

const JOB_TIMEOUT_MS = 130_000;

function minionIdOf(index: number): string {
  return `bench-${String(index).padStart(5, '0')}`;
}

async function timeJob(client: IpcChild, expect: number): Promise<JobTiming> {
  client.send({ type: 'job', expect });
  const msg = await client.expect('timing', JOB_TIMEOUT_MS, `no answer to a test.ping job to ${expect} minions`);
  return { publishMs: Number(msg.publishMs), firstReturnMs: Number(msg.firstReturnMs), allReturnsMs: Number(msg.allReturnsMs) };
}

/** Runs one scale measurement for `count` minions with keys from `keyCache`, then stops everything. */
export async function runBrineScale(
  count: number,
  rounds: number,
  keyCache: string,
  runtime: SharedMinionRuntime,
  authTimeout?: number,
  /** Runs after the timed jobs while the master and minions are still up (the salt-api bench). */
  during?: (masterDir: string) => Promise<void>,
): Promise<BrineScaleResult> {
  const cluster = await Cluster.create({ auto_accept: true, keysize: 2048, log_level_logfile: 'warning' });
  const minions: Minion[] = [];
  let client: IpcChild | undefined;
  try {
    const masterStart = performance.now();
    const master = await cluster.startMaster();
    const masterStartMs = performance.now() - masterStart;
    const masterPid = master.child.pid!;

    // The minion defaults (auth_timeout, retries, ...) come from the real config loader.
    const templateDir = join(cluster.root, 'minion-template');
    mkdirSync(templateDir, { recursive: true });
    const { config } = loadMinionConfig(templateDir, { root_dir: join(cluster.root, 'minions'), master: '127.0.0.1', master_port: cluster.retPort });
    const { id: _id, pki_dir: _pki, master_port: _port, ...daemon } = minionSettings({ ...config, id: 'template' });
    const base: Omit<MinionSettings, 'id' | 'pki_dir' | 'master_port'> = {
      ...daemon,
      master: '127.0.0.1',
      keysize: 2048,
      auth_timeout: authTimeout ?? config.auth_timeout,
    };
    // Sign-in timeouts are counted rather than printed (at N=1000 there are thousands); every
    // other warning goes to stderr as the daemon would print it.
    let signInRetries = 0;
    const logging = createLogging({
      level: 'warning',
      console: true,
      stderr: {
        write: (line: string) => (line.includes('did not answer the sign-in') ? signInRetries++ : process.stderr.write(line)),
      },
    });
    const logger = logging.getLogger('salt.minion');

    const keysStart = performance.now();
    for (let i = 0; i < count; i++) {
      const id = minionIdOf(i);
      const pkiDir = join(cluster.root, 'minions', id, 'pki');
      installMinionKey(keyCache, i, pkiDir);
      minions.push(new Minion({ ...base, id, pki_dir: pkiDir, master_port: cluster.retPort }, runtime.executor, runtime.grains, logger));
    }
    const keyInstallMs = performance.now() - keysStart;

    const masterCpu0 = cpuSeconds(masterPid);
    const benchCpu0 = ownCpuSeconds();
    const signInStart = performance.now();
    await Promise.all(minions.map((m) => m.start()));
    const signInMs = performance.now() - signInStart;
    const masterCpuSignInS = cpuSeconds(masterPid) - masterCpu0;
    const benchCpuSignInS = ownCpuSeconds() - benchCpu0;
    const masterRssAfterSignInMiB = rssMiB(masterPid);

    client = new IpcChild('job client', 'client-worker', [cluster.masterDir]);
    await client.expect('ready', 30_000, 'not connected to the master event bus');
    const warmup = await timeJob(client, count);
    const masterCpu1 = cpuSeconds(masterPid);
    const benchCpu1 = ownCpuSeconds();
    const jobs: JobTiming[] = [];
    for (let r = 0; r < rounds; r++) jobs.push(await timeJob(client, count));
    const masterCpuJobsS = cpuSeconds(masterPid) - masterCpu1;
    const benchCpuJobsS = ownCpuSeconds() - benchCpu1;
    if (during) await during(cluster.masterDir);
    return {
      minions: count,
      keyInstallMs,
      masterStartMs,
      signInMs,
      signInRetries,
      masterCpuSignInS,
      benchCpuSignInS,
      warmup,
      jobs,
      jobsMs: summarize(jobs.map((j) => j.allReturnsMs)),
      masterCpuJobsS,
      benchCpuJobsS,
      masterRssAfterSignInMiB,
      masterRssMiB: rssMiB(masterPid),
      masterPeakRssMiB: peakRssMiB(masterPid),
      benchRssMiB: process.memoryUsage().rss / 1024 / 1024,
      minionSettings: base,
    };
  } finally {
    await client?.stop();
    await Promise.allSettled(minions.map((m) => m.stop()));
    await cluster.stop();
  }
}
