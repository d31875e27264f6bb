/**
 * The job client of the scale benchmark, in its own process as the `salt` CLI is, so that reading
 * N returns off the event bus does not share an event loop with the N simulated minions (and the
 * publish acknowledgement is timed as the CLI would see it). Driven over the IPC channel:
 *
 *   parent -> {type: 'job', expect}   publish test.ping to '*', collect the returns
 *   child  -> {type: 'ready'} | {type: 'timing', publishMs, firstReturnMs, p95ReturnMs, allReturnsMs, returns, lost}
 *           | {type: 'error', message}
 *
 * Usage: node client-worker.js <master config dir>
 */
import { loadMasterConfig } from '../src/core/config';
import { LocalClient } from '../src/core/client/local-client';

const JOB_TIMEOUT_MS = 120_000;

function send(message: Record<string, unknown>): void {
  process.send?.(message);
}

/**
 * One test.ping to '*': the publish acknowledgement, the first return, the return that made 95 %
 * of `expect`, and the last. Returns that never came are counted (`lost`), not thrown: the bench
 * reports them.
 */
async function job(client: LocalClient, expect: number): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
  const publishMs = performance.now() - t0;
  if (pub.minions.length !== expect) throw new Error(`the master expects ${pub.minions.length} minions for '*', not ${expect}`);
  let firstReturnMs = 0;
  let p95ReturnMs = 0;
  let count = 0;
  const p95 = Math.ceil(expect * 0.95);
  for await (const ret of client.returns(pub, JOB_TIMEOUT_MS)) {
    if (ret.return !== true) throw new Error(`${ret.id} answered test.ping with ${JSON.stringify(ret.return)}`);
    count++;
    if (count === 1) firstReturnMs = performance.now() - t0;
    if (count === p95) p95ReturnMs = performance.now() - t0;
  }
  const allReturnsMs = performance.now() - t0;
  return { type: 'timing', publishMs, firstReturnMs, p95ReturnMs, allReturnsMs, returns: count, lost: expect - count };
}

async function main(): Promise<void> {
  const configDir = process.argv[2];
  if (!process.send) throw new Error('client-worker must be started with an IPC channel (child_process.fork)');
  if (!configDir) throw new Error('usage: client-worker <master config dir>');
  const { config } = loadMasterConfig(configDir);
  const client = await LocalClient.connect(config);
  process.on('disconnect', () => {
    client.close();
    process.exit(0);
  });
  process.on('message', (msg: { type: string; expect: number }) => {
    if (msg.type !== 'job') return;
    job(client, msg.expect).then(send, (err) => send({ type: 'error', message: String((err as Error)?.message ?? err) }));
  });
  send({ type: 'ready' });
}

main().catch((err) => {
  process.stderr.write(`client-worker: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
