/**
 * The raw-ZeroMQ baseline for the scale benchmark: the same shape of traffic as a brine job (one
 * publication to N subscribers, N replies over REQ sockets) with no msgpack, no crypto, no event
 * bus and no executor. The server runs in a child process (bench/baseline-server.ts), the N
 * subscribers in child processes of about 2,000 each (bench/baseline-clients.ts), as brine's master
 * and simulated minions do.
 */
import { BenchError } from './bench-error';
import { freePort } from '../scripts/cluster';
import { IpcChild } from './ipc-child';
import { childPids, cpuSeconds, peakRssMiB, rssMiB, sumOver } from './procfs';
import { summarize, type Summary } from './report';

export interface BaselineResult {
  minions: number;
  setupMs: number;
  warmupMs: number;
  jobsMs: Summary;
  serverRssMiB: number;
  /** The server's CPU per reply over the timed rounds, in µs: the transport's own share of a return. */
  serverCpuPerReplyUs: number;
  serverPeakRssMiB: number;
  /** The server's RSS after as many rounds as brine's soak ran jobs (see runBaseline's `soak`). */
  soak?: { jobs: number; rssAtMarkMiB: number; rssAtEndMiB: number };
}

/**
 * Rounds run back to back after the timed ones, as many as brine's soak ran jobs, with the RSS read
 * after `markJobs` of them and at the end: ZeroMQ's own memory for the same traffic (each pipe's
 * queue grows to its steady size over the first few hundred messages on it).
 */
export interface BaselineSoak {
  markJobs: number;
  jobs: number;
}

const ROUND_TIMEOUT_MS = 60_000;
const PER_PROCESS = 2000;

/** One publication per round to `minions` subscribers; `rounds` timed rounds after one warm-up. */
export async function runBaseline(minions: number, rounds: number, soak?: BaselineSoak): Promise<BaselineResult> {
  const setupStart = performance.now();
  const pubPort = await freePort();
  const retPort = await freePort();
  const server = new IpcChild('baseline server', 'baseline-server', [String(pubPort), String(retPort)], (msg) =>
    msg.type === 'done' ? `done:${String(msg.round)}` : msg.type,
  );
  // The N pairs in processes of about 2,000 each, as the brine simulators (fds per process).
  const clients: IpcChild[] = [];
  try {
    await server.expect('ready', 20_000, 'not listening');
    const workers = Math.ceil(minions / PER_PROCESS);
    for (let w = 0; w < workers; w++) {
      const first = Math.floor((minions * w) / workers);
      const count = Math.floor((minions * (w + 1)) / workers) - first;
      clients.push(
        new IpcChild(`baseline clients ${w}`, 'baseline-clients', [String(pubPort), String(retPort), String(first), String(count)]),
      );
    }
    await Promise.all(clients.map((c) => c.expect('connected', 120_000, 'subscribers not connected')));
    const setupMs = performance.now() - setupStart;

    // A connected SUB socket's subscription reaches the PUB socket a moment later: the warm-up
    // round is published again until every subscriber has answered it.
    const warmStart = performance.now();
    server.send({ type: 'round', round: 'warmup', expect: minions });
    let warmed = false;
    for (let attempt = 0; attempt < 30 && !warmed; attempt++) {
      warmed = (await server.waitFor('done:warmup', 2000)) !== null;
      if (!warmed) server.send({ type: 'republish', round: 'warmup' });
    }
    if (!warmed) throw new BenchError('BENCH_BASELINE', `baseline: not all ${minions} subscribers answered the warm-up within 60 s`);
    const warmupMs = performance.now() - warmStart;

    const samples: number[] = [];
    // The server and its publish process, as the master is split (bench/brine-scale.ts).
    const pids = [server.pid, ...childPids(server.pid)];
    const cpu0 = sumOver(pids, cpuSeconds);
    for (let r = 1; r <= rounds; r++) {
      const round = `r${r}`;
      const t0 = performance.now();
      server.send({ type: 'round', round, expect: minions });
      await server.expect(`done:${round}`, ROUND_TIMEOUT_MS, `round ${r} did not get ${minions} replies`);
      samples.push(performance.now() - t0);
    }
    const serverCpuPerReplyUs = ((sumOver(pids, cpuSeconds) - cpu0) / (rounds * minions)) * 1e6;
    const serverRssMiB = sumOver(pids, rssMiB);
    const serverPeakRssMiB = sumOver(pids, peakRssMiB);
    let soaked: BaselineResult['soak'];
    if (soak) {
      let rssAtMarkMiB = serverRssMiB;
      for (let r = 1; r <= soak.jobs; r++) {
        const round = `s${r}`;
        server.send({ type: 'round', round, expect: minions });
        await server.expect(`done:${round}`, ROUND_TIMEOUT_MS, `soak round ${r} did not get ${minions} replies`);
        if (r === soak.markJobs) rssAtMarkMiB = sumOver(pids, rssMiB);
      }
      soaked = { jobs: soak.jobs, rssAtMarkMiB, rssAtEndMiB: sumOver(pids, rssMiB) };
    }
    return {
      minions,
      setupMs,
      warmupMs,
      jobsMs: summarize(samples),
      serverRssMiB,
      serverPeakRssMiB,
      serverCpuPerReplyUs,
      ...(soaked ? { soak: soaked } : {}),
    };
  } finally {
    for (const c of clients) c.stopGracefully();
    await Promise.allSettled(clients.map((c) => c.exited));
    await server.stop();
  }
}
