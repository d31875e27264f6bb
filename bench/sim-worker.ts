/**
 * One simulator process of the scale benchmark: `count` real `Minion` instances (the real channel,
 * the real Executor over built-in plugins loaded once in this process), minion ids
 * bench-<first>..bench-<first+count-1>. Minions are spread over several such processes (about
 * 2,000 each, as `ulimit -n` allows) so that N = 10,000 fits and the simulator uses both cores.
 * Driven over the IPC channel:
 *
 *   parent -> {type: 'start'}     sign all minions in (Promise.all of Minion.start())
 *   child  -> {type: 'loaded', pluginsMs} | {type: 'signed-in', ms, retries, failed}
 *   parent -> {type: 'stats'}     child -> {type: 'stats', retries, returnRetries, lostReturns, signIns, rekeys, jobsRun,
 *                                                   publicationsOpened, publicationsShared}
 *   parent -> {type: 'stop'}      child -> {type: 'stopped'}, then exits
 *
 * Usage: node sim-worker.js '<json: SimWorkerSpec>'
 */
import { join } from 'node:path';
import { createLogging } from '../src/core/log';
import { Minion, type JobExecutor, type MinionSettings } from '../src/core/minion/job-loop';
import { installMinionKey } from './keys';
import { minionIdOf } from './minion-ids';
import { sharedPublicationOpener } from './shared-publication';
import { sharedRuntime } from './shared-runtime';

export interface SimWorkerSpec {
  first: number;
  count: number;
  /** Key cache folder and how many distinct keys the minions share (index modulo keyPool). */
  keyCache: string;
  keyPool: number;
  root: string;
  settings: Omit<MinionSettings, 'id' | 'pki_dir'>;
  /** One opening of each publication for all this process's minions (bench/shared-publication.ts). */
  sharePublications: boolean;
}

function send(message: Record<string, unknown>): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('sim-worker must be started with an IPC channel (child_process.fork)');
  const spec = JSON.parse(process.argv[2] ?? '') as SimWorkerSpec;
  const runtime = await sharedRuntime();
  // Sign-ins, sign-in timeouts, re-sign-ins for a new publish key and return retries are counted
  // rather than printed (at N=10,000 there can be thousands); every other warning goes to stderr
  // as the daemon would print it, other info lines nowhere.
  const counts = { retries: 0, returnRetries: 0, lostReturns: 0, signIns: 0, rekeys: 0, jobsRun: 0 };
  const logging = createLogging({
    level: 'info',
    console: true,
    stderr: {
      write: (line: string) => {
        if (line.includes('did not answer the sign-in')) counts.retries++;
        else if (line.includes('not acknowledged, retrying')) counts.returnRetries++;
        else if (line.includes('could not be delivered')) counts.lostReturns++;
        else if (line.includes('Authentication with master successful')) counts.signIns++;
        else if (line.includes('Publication could not be decrypted')) counts.rekeys++;
        else if (!line.startsWith('[INFO')) process.stderr.write(line);
      },
    },
  });
  const logger = logging.getLogger('salt.minion');
  // Jobs run, to tell publications that never reached a minion (high-water-mark drops) from
  // returns lost on the way back.
  const shared = runtime.executor;
  const executor: JobExecutor = {
    run: (job) => {
      counts.jobsRun++;
      return shared.run(job);
    },
    ...(shared.afterReturn ? { afterReturn: (job, result) => shared.afterReturn!(job, result) } : {}),
  };
  const opener = spec.sharePublications ? sharedPublicationOpener() : undefined;
  const minions: Minion[] = [];
  for (let i = spec.first; i < spec.first + spec.count; i++) {
    const id = minionIdOf(i);
    const pkiDir = join(spec.root, id, 'pki');
    installMinionKey(spec.keyCache, i % spec.keyPool, pkiDir);
    minions.push(
      new Minion({ ...spec.settings, id, pki_dir: pkiDir }, executor, runtime.grains, logger, opener ? { openPublication: opener } : {}),
    );
  }
  send({ type: 'loaded', pluginsMs: runtime.loadMs });

  const stop = async () => {
    await Promise.allSettled(minions.map((m) => m.stop()));
    runtime.cleanup();
    send({ type: 'stopped' });
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'start') {
      const t0 = performance.now();
      void Promise.allSettled(minions.map((m) => m.start())).then((results) => {
        const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        send({
          type: 'signed-in',
          ms: performance.now() - t0,
          retries: counts.retries,
          failed: failed.length,
          firstError: failed[0] ? String(failed[0].reason?.message ?? failed[0].reason) : undefined,
        });
      });
    } else if (msg.type === 'stats') {
      send({ type: 'stats', ...counts, publicationsOpened: opener?.opened() ?? 0, publicationsShared: opener?.reused() ?? 0 });
    } else if (msg.type === 'stop') {
      void stop();
    }
  });
}

main().catch((err) => {
  process.stderr.write(`sim-worker: ${(err as Error)?.stack ?? err}\n`);
  send({ type: 'error', message: String((err as Error)?.message ?? err) });
  process.exit(1);
});
