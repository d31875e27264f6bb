/**
 * `npm run bench -- --real N`: N real `salt-minion` processes (bin/salt-minion, each its own
 * Node process with its own keys) on loopback against a real salt-master, and the `salt` CLI's
 * wall time for `salt '*' test.ping` (process start to exit, as a user sees it). Outside
 * `npm test`: at today's RSS, 100 minions take several GB and a minute of CPU to start.
 */
import { Cluster } from '../scripts/cluster';
import { BenchError } from './bench-error';
import { childPids, rssMiB, sumOver } from './procfs';
import { summarize, type Summary } from './report';

export interface RealMinionsResult {
  minions: number;
  /** All N started, accepted (salt-key -A) and ready. */
  startMs: number;
  /** `salt '*' test.ping`, whole CLI process. */
  pingMs: Summary;
  /** Minions missing from a ping's output, over all runs. */
  missing: number;
  /** RSS of each minion process once idle after the pings. */
  minionRssMiB: Summary;
  masterRssMiB: number;
}

export async function runRealMinions(count: number, rounds: number): Promise<RealMinionsResult> {
  const cluster = await Cluster.create({ connection_rate_limit: 0 });
  try {
    await cluster.startMaster();
    const ids = Array.from({ length: count }, (_, i) => `real-${String(i).padStart(4, '0')}`);
    const t0 = performance.now();
    await cluster.startAccepted(ids.map((id) => ({ id })));
    const startMs = performance.now() - t0;
    const samples: number[] = [];
    let missing = 0;
    for (let r = 0; r < rounds + 1; r++) {
      const t = performance.now();
      const res = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
      const ms = performance.now() - t;
      if (res.code !== 0 && res.code !== 1) throw new BenchError('BENCH_REAL', `salt '*' test.ping exited ${res.code}: ${res.stderr}`);
      let answered: Record<string, unknown> = {};
      try {
        answered = JSON.parse(res.stdout) as Record<string, unknown>;
      } catch {
        throw new BenchError('BENCH_REAL', `salt '*' test.ping printed no JSON: ${res.stdout.slice(0, 500)}`);
      }
      const lost = ids.filter((id) => answered[id] !== true).length;
      // The first run is the warm-up (the CLI's own first start, the minions' first job).
      if (r > 0) {
        samples.push(ms);
        missing += lost;
      }
    }
    const rss = [...cluster.minions.values()].map((m) => rssMiB(m.child.pid!));
    return {
      minions: count,
      startMs,
      pingMs: summarize(samples),
      missing,
      minionRssMiB: summarize(rss),
      // The master and its publish process, as in the scale runs.
      masterRssMiB: sumOver([cluster.master!.child.pid!, ...childPids(cluster.master!.child.pid!)], rssMiB),
    };
  } finally {
    await cluster.stop();
  }
}
