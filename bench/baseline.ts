/**
 * The raw-ZeroMQ baseline for the scale benchmark: the same shape of traffic as a brine job (one
 * publication to N subscribers, N replies over REQ sockets) with no msgpack, no crypto, no event
 * bus and no executor. The server runs in a child process (bench/baseline-server.ts), the N
 * subscribers here, as brine's master and minions do.
 */
import { BenchError } from './bench-error';
import { RequestClient, SubscribeClient, raiseSocketLimit } from '../src/core/transport/zeromq';
import { freePort } from '../scripts/cluster';
import { IpcChild } from './ipc-child';
import { cpuSeconds, peakRssMiB, rssMiB } from './procfs';
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
}

const ROUND_TIMEOUT_MS = 60_000;

/** One publication per round to `minions` subscribers; `rounds` timed rounds after one warm-up. */
export async function runBaseline(minions: number, rounds: number): Promise<BaselineResult> {
  const setupStart = performance.now();
  raiseSocketLimit(20_000);
  const pubPort = await freePort();
  const retPort = await freePort();
  const server = new IpcChild('baseline server', 'baseline-server', [String(pubPort), String(retPort)], (msg) =>
    msg.type === 'done' ? `done:${String(msg.round)}` : msg.type,
  );
  const subscribers: SubscribeClient[] = [];
  const requesters: RequestClient[] = [];
  try {
    await server.expect('ready', 20_000, 'not listening');
    for (let i = 0; i < minions; i++) {
      const sub = new SubscribeClient();
      const req = new RequestClient(`tcp://127.0.0.1:${retPort}`);
      sub.connect(`tcp://127.0.0.1:${pubPort}`);
      subscribers.push(sub);
      requesters.push(req);
      void (async () => {
        for await (const frames of sub.messages()) {
          // The answer names the round and this subscriber; failures surface as a round timeout.
          req.request(Buffer.from(`${frames[0].toString('latin1')}:${i}`, 'latin1'), ROUND_TIMEOUT_MS).catch(() => undefined);
        }
      })();
    }
    await Promise.all(subscribers.map((s) => s.whenConnected()));
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
    const cpu0 = cpuSeconds(server.pid);
    for (let r = 1; r <= rounds; r++) {
      const round = `r${r}`;
      const t0 = performance.now();
      server.send({ type: 'round', round, expect: minions });
      await server.expect(`done:${round}`, ROUND_TIMEOUT_MS, `round ${r} did not get ${minions} replies`);
      samples.push(performance.now() - t0);
    }
    const pid = server.pid;
    const serverCpuPerReplyUs = ((cpuSeconds(pid) - cpu0) / (rounds * minions)) * 1e6;
    return {
      minions,
      setupMs,
      warmupMs,
      jobsMs: summarize(samples),
      serverRssMiB: rssMiB(pid),
      serverPeakRssMiB: peakRssMiB(pid),
      serverCpuPerReplyUs,
    };
  } finally {
    for (const s of subscribers) s.close();
    for (const r of requesters) r.close();
    await server.stop();
  }
}
