/**
 * The server half of the raw-ZeroMQ baseline, run as a child process (as the master is): a PUB
 * socket in a process of its own and a ROUTER socket, through brine's transport classes as the
 * master has them, with no msgpack and no crypto.
 * The parent drives it over the IPC channel:
 *
 *   parent -> {type: 'round', round, expect}   publish `round` once; reply 'done' once `expect`
 *                                              distinct subscribers answered it
 *   parent -> {type: 'republish', round}       publish the same round again (warm-up only)
 *   child  -> {type: 'ready'} | {type: 'done', round} | {type: 'error', message}
 *
 * Usage: node baseline-server.js <publish port> <request port>
 */
import { RequestServer, raiseSocketLimit } from '../src/core/transport/zeromq';
import { ProcessPublishServer } from '../src/core/transport/publish-process';

type Command = { type: 'round'; round: string; expect: number } | { type: 'republish'; round: string };

function send(message: Record<string, unknown>): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const [pubPort, retPort] = process.argv.slice(2).map(Number);
  if (!process.send) throw new Error('baseline-server must be started with an IPC channel (child_process.fork)');
  if (!Number.isInteger(pubPort) || !Number.isInteger(retPort)) throw new Error('usage: baseline-server <publish port> <request port>');
  raiseSocketLimit(20_000);
  const publisher = new ProcessPublishServer();
  const requests = new RequestServer();
  await publisher.bind(`tcp://127.0.0.1:${pubPort}`);
  await requests.bind(`tcp://127.0.0.1:${retPort}`);

  let current: { round: string; expect: number; seen: Set<string>; done: boolean } | undefined;
  const empty = Buffer.alloc(0);
  requests.serve(
    async (payload) => {
      // A reply is "<round>:<subscriber index>"; answers to an older round are acknowledged and ignored.
      const text = payload.toString('latin1');
      const colon = text.indexOf(':');
      if (current && !current.done && text.slice(0, colon) === current.round) {
        current.seen.add(text.slice(colon + 1));
        if (current.seen.size >= current.expect) {
          current.done = true;
          send({ type: 'done', round: current.round });
        }
      }
      return empty;
    },
    (err) => send({ type: 'error', message: String((err as Error)?.message ?? err) }),
  );

  const stop = async () => {
    await publisher.close();
    await requests.close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('message', (msg: Command) => {
    if (msg.type === 'round') current = { round: msg.round, expect: msg.expect, seen: new Set(), done: false };
    if (msg.type !== 'round' && msg.type !== 'republish') return;
    publisher
      .publish([Buffer.from(msg.round, 'latin1')])
      .catch((err) => send({ type: 'error', message: `publish failed: ${(err as Error).message}` }));
  });
  send({ type: 'ready' });
}

main().catch((err) => {
  process.stderr.write(`baseline-server: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
