/**
 * The raw-ZeroMQ baseline for the scale benchmark: the same shape of traffic as a brine job (one
 * publication to N subscribers, N replies over REQ sockets) with no msgpack, no crypto, no event
 * bus and no executor. The server runs in a child process (bench/baseline-server.ts), the N
 * subscribers here, as brine's master and minions do.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BrineError } from '../src/core/errors';
import { RequestClient, SubscribeClient, raiseSocketLimit } from '../src/core/transport/zeromq';
import { freePort } from '../scripts/cluster';
import { peakRssMiB, rssMiB } from './procfs';
import { summarize, type Summary } from './report';

export interface BaselineResult {
  minions: number;
  setupMs: number;
  warmupMs: number;
  jobsMs: Summary;
  serverRssMiB: number;
  serverPeakRssMiB: number;
}

type ServerMessage = { type: 'ready' } | { type: 'done'; round: string } | { type: 'error'; message: string };

const ROUND_TIMEOUT_MS = 60_000;

class ServerHandle {
  private readonly waiters = new Map<string, () => void>();
  private failure?: Error;
  readonly exited: Promise<number>;

  constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))));
    child.on('message', (msg: ServerMessage) => {
      if (msg.type === 'error') this.failure = new BrineError('BENCH_BASELINE', `baseline server: ${msg.message}`);
      const key = msg.type === 'done' ? `done:${msg.round}` : msg.type;
      this.waiters.get(key)?.();
    });
    void this.exited.then((code) => {
      this.failure ??= new BrineError('BENCH_BASELINE', `baseline server exited with code ${code}`);
      for (const wake of this.waiters.values()) wake();
    });
  }

  /** Resolves true when the server sends `key`, false after timeoutMs; throws if the server failed. */
  waitFor(key: string, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(key);
        if (this.failure) reject(this.failure);
        else resolve(ok);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.set(key, () => finish(true));
    });
  }

  send(message: Record<string, unknown>): void {
    this.child.send(message);
  }

  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) process.kill(pid, 'SIGTERM');
    await this.exited;
  }
}

/** One publication per round to `minions` subscribers; `rounds` timed rounds after one warm-up. */
export async function runBaseline(minions: number, rounds: number): Promise<BaselineResult> {
  const setupStart = performance.now();
  raiseSocketLimit(20_000);
  const pubPort = await freePort();
  const retPort = await freePort();
  const server = new ServerHandle(
    fork(join(__dirname, 'baseline-server.js'), [String(pubPort), String(retPort)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const subscribers: SubscribeClient[] = [];
  const requesters: RequestClient[] = [];
  try {
    if (!(await server.waitFor('ready', 20_000))) throw new BrineError('BENCH_BASELINE', 'baseline server did not start within 20 s');
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
      warmed = await server.waitFor('done:warmup', 2000);
      if (!warmed) server.send({ type: 'republish', round: 'warmup' });
    }
    if (!warmed) throw new BrineError('BENCH_BASELINE', `baseline: not all ${minions} subscribers answered the warm-up within 60 s`);
    const warmupMs = performance.now() - warmStart;

    const samples: number[] = [];
    for (let r = 1; r <= rounds; r++) {
      const round = `r${r}`;
      const t0 = performance.now();
      server.send({ type: 'round', round, expect: minions });
      if (!(await server.waitFor(`done:${round}`, ROUND_TIMEOUT_MS))) {
        throw new BrineError('BENCH_BASELINE', `baseline: round ${r} did not get ${minions} replies within ${ROUND_TIMEOUT_MS / 1000} s`);
      }
      samples.push(performance.now() - t0);
    }
    const pid = server.child.pid!;
    return { minions, setupMs, warmupMs, jobsMs: summarize(samples), serverRssMiB: rssMiB(pid), serverPeakRssMiB: peakRssMiB(pid) };
  } finally {
    for (const s of subscribers) s.close();
    for (const r of requesters) r.close();
    await server.stop();
  }
}
