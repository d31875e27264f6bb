/**
 * The subscriber side of the raw-ZeroMQ baseline, one process per ~2,000 pairs (as the brine
 * simulators): `count` SUB + REQ pairs numbered from `first`; each answers every publication with
 * "<round>:<index>" on its REQ socket. Driven over the IPC channel:
 *
 *   child -> {type: 'connected'} once every SUB socket is connected
 *   parent -> {type: 'stop'}   child closes its sockets and exits
 *
 * Usage: node baseline-clients.js <publish port> <request port> <first> <count>
 */
import { RequestClient, SubscribeClient, raiseSocketLimit } from '../src/core/transport/zeromq';

const REPLY_TIMEOUT_MS = 60_000;

async function main(): Promise<void> {
  const [pubPort, retPort, first, count] = process.argv.slice(2).map(Number);
  if (!process.send) throw new Error('baseline-clients must be started with an IPC channel (child_process.fork)');
  if (![pubPort, retPort, first, count].every(Number.isInteger))
    throw new Error('usage: baseline-clients <pub port> <req port> <first> <count>');
  raiseSocketLimit(20_000);
  const subscribers: SubscribeClient[] = [];
  const requesters: RequestClient[] = [];
  for (let i = first; i < first + count; i++) {
    const sub = new SubscribeClient();
    const req = new RequestClient(`tcp://127.0.0.1:${retPort}`);
    sub.connect(`tcp://127.0.0.1:${pubPort}`);
    subscribers.push(sub);
    requesters.push(req);
    void (async () => {
      for await (const frames of sub.messages()) {
        // The answer names the round and this subscriber; failures surface as a round timeout.
        req.request(Buffer.from(`${frames[0].toString('latin1')}:${i}`, 'latin1'), REPLY_TIMEOUT_MS).catch(() => undefined);
      }
    })();
  }
  const stop = () => {
    for (const s of subscribers) s.close();
    for (const r of requesters) r.close();
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('message', (msg: { type: string }) => msg.type === 'stop' && stop());
  await Promise.all(subscribers.map((s) => s.whenConnected()));
  process.send({ type: 'connected' });
}

main().catch((err) => {
  process.stderr.write(`baseline-clients: ${(err as Error)?.stack ?? err}\n`);
  process.send?.({ type: 'error', message: String((err as Error)?.message ?? err) });
  process.exit(1);
});
