/**
 * Entry of the publish port's own process (see publish-process.ts). Started with its options as
 * JSON in BRINE_PUBLISHER_OPTIONS, it serves the parent's messages over Node's IPC channel, in order:
 *
 *   {type: 'bind', id, address}  -> {type: 'bound', id} | {type: 'failed', id, code, message, hint}
 *   {type: 'publish', frames}    -> (nothing: a PUB socket never waits nor answers)
 *   {type: 'close'}              -> {type: 'closed'} once the ports are free, then exits
 *   (unasked)                    -> {type: 'warning', code, message, hint}: trouble taking connections
 *
 * It exits as soon as the channel to its parent closes, whatever the way the parent ended (kill -9
 * included), so that a publish port is never left held by an orphan.
 */
import { TransportError, type BrineError } from '../errors';
import type { IPublishServer } from './types';
import { PublishServer, raiseSocketLimit } from './zeromq';
import { ZmtpPublishServer } from './zmtp-publisher';

type Message = { type: 'bind'; id: number; address: string } | { type: 'publish'; frames: Uint8Array[] } | { type: 'close' };

if (!process.send)
  throw new TransportError('TRANSPORT', 'publish-process-child must be started by ProcessPublishServer, with an IPC channel');
const send = process.send.bind(process);
const options = JSON.parse(process.env.BRINE_PUBLISHER_OPTIONS ?? '{}') as { highWaterMark?: number; backlog?: number; ports?: string };
// The parent checked zmq_ports (zmqPorts); libzmq is loaded only when it names it (about 6 MiB
// of this process's memory otherwise, at any number of minions).
const server: IPublishServer =
  options.ports === 'libzmq'
    ? libzmqServer()
    : new ZmtpPublishServer({
        highWaterMark: options.highWaterMark,
        backlog: options.backlog,
        onWarning: (err) => send({ type: 'warning', code: err.code, message: err.message, hint: err.hint }),
      });

function libzmqServer(): IPublishServer {
  raiseSocketLimit(20_000);
  return new PublishServer({ highWaterMark: options.highWaterMark, backlog: options.backlog });
}

/** Bytes cross the channel as Uint8Arrays: seen as Buffers again without a copy. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

process.on('disconnect', () => process.exit(0));
process.on('message', (msg: Message) => {
  switch (msg.type) {
    case 'bind':
      server.bind(msg.address).then(
        () => send({ type: 'bound', id: msg.id }),
        (err: unknown) => {
          const e = err as BrineError;
          send({ type: 'failed', id: msg.id, code: e.code ?? 'TRANSPORT', message: String(e.message ?? err), hint: e.hint });
        },
      );
      break;
    case 'publish':
      // A closed socket (we are stopping) is the only way this fails: nothing to tell.
      server.publish(msg.frames.map(asBuffer)).catch(() => undefined);
      break;
    case 'close':
      void server.close().then(() => {
        send({ type: 'closed' }, () => process.exit(0));
      });
      break;
  }
});
send({ type: 'ready' });
