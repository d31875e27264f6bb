/**
 * A ZeroMQ REQ client in plain Node: ZMTP 3.1 (rfc.zeromq.org/spec/37) with the NULL mechanism,
 * what a master's request port speaks (a libzmq ROUTER in Salt's master, Node's in brine's). The
 * commands that run beside a master (salt, salt-run, salt-key, salt-cp, salt-api) send their
 * requests through it, and a minion its sign-ins and returns (zmq_ports: node, zmq-ports.ts).
 * Messages go as a REQ socket sends them: an empty delimiter frame, then the payload; the reply
 * comes back behind the same delimiter.
 *
 * Why not libzmq: loading it and opening one socket cost the `salt` CLI 3.7 MiB of its 51 MiB peak
 * (docs/scaling.md), for one request, and a minion some 5 MiB and two threads.
 *
 * Where it differs from a libzmq REQ socket: a connection that ends before the reply (the master
 * stopped, or refused the connection at its handshake) fails the request at once with TRANSPORT,
 * rather than leaving it to time out; no request is ever sent twice. And a request that times out
 * while its connection waits in the master's accept queue (TCP connected, the master's greeting
 * not yet come) keeps that connection: a resend of the same bytes waits there for the one reply,
 * where a new connection would join the back of the queue (Salt's client reconnects; in a sign-in
 * storm that cost a fifth of both sides' CPU, docs/scaling.md).
 */
import { createConnection, type Socket } from 'node:net';
import { TransportError } from '../errors';
import type { ConnectionOptions, IRequestClient } from './types';
import { OneAtATime } from './one-at-a-time';
import {
  GREETING,
  MORE,
  ZmtpReader,
  readyCommand,
  readyProperties,
  zmtpCommand,
  connectOptions,
  zmtpConnectEndpoint,
  zmtpFrame,
} from './zmtp';

export { zmtpFrame } from './zmtp';

const READY = readyCommand('REQ');

/** The socket types a REQ may talk to (ZMTP 3.1, "Socket type compatibility"). */
const PEER_TYPES = new Set(['REP', 'ROUTER']);

/** Where to connect (port 0 is for listening only). */
const endpoint = (address: string) => zmtpConnectEndpoint(address, 'a request can go to');

/** One request in flight on a connection. */
interface Pending {
  resolve(reply: Buffer): void;
  reject(err: TransportError): void;
}

/**
 * One ZMTP connection: greeting, READY both ways, then request and reply. It never reconnects:
 * the client opens a new one.
 */
class Connection {
  private readonly socket: Socket;
  private readonly reader: ZmtpReader;
  private ready = false;
  private ended = false;
  private pending?: Pending;
  /** The request this connection carries: sent once the handshake is done, answered once. */
  private held?: Buffer;
  private heldSent = false;
  /** The reply to `held` that came after its waiter had timed out, for a resend of the same bytes. */
  private lateReply?: Buffer;
  /** Reads so far, and how many there were when `held` was sent: a reply comes in a later one. */
  private reads = 0;
  private readsBeforeSend = 0;
  /** Settles when the handshake is done, or the connection fails first. */
  readonly opened: Promise<void>;
  private markOpened!: () => void;
  private failOpen!: (err: TransportError) => void;

  constructor(
    private readonly address: string,
    { keepAlive, source }: Pick<ConnectionOptions, 'keepAlive' | 'source'> = {},
  ) {
    this.opened = new Promise<void>((resolve, reject) => {
      this.markOpened = resolve;
      this.failOpen = reject;
    });
    // Nobody may be waiting on it yet (a request that timed out before the connection failed).
    this.opened.catch(() => undefined);
    this.reader = new ZmtpReader({
      command: (name, data) => this.onCommand(name, data),
      message: (frames) => this.onMessage(frames),
    });
    this.socket = createConnection(connectOptions(endpoint(address), source));
    this.socket.setNoDelay(true);
    if (keepAlive) this.socket.setKeepAlive(true, Math.max(0, keepAlive.idleSeconds) * 1000);
    this.socket.write(Buffer.concat([GREETING, READY]));
    this.socket.on('data', (chunk: Buffer) => {
      this.reads++;
      try {
        this.reader.push(chunk);
      } catch (err) {
        this.fail(
          new TransportError('TRANSPORT', `${address} does not speak ZeroMQ's protocol as a request port: ${(err as Error).message}`, {
            cause: err,
          }),
        );
      }
    });
    this.socket.on('error', (err: NodeJS.ErrnoException) => {
      this.fail(new TransportError('TRANSPORT', `cannot reach ${address}: ${err.code ?? err.message}`, { cause: err }));
    });
    this.socket.on('close', () => {
      this.fail(new TransportError('TRANSPORT', `${address} closed the connection before it replied`));
    });
  }

  /** Whether the connection failed or was closed; a new one is needed. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Whether the connection ever completed its handshake (a refused connection did not). */
  get wasOpened(): boolean {
    return this.ready;
  }

  /** Connected, and waiting for the master to take the connection: its greeting has not come. */
  get awaitingAccept(): boolean {
    return !this.ended && !this.ready && !this.socket.connecting;
  }

  /**
   * Whether `payload` may go on this connection: no request sent on it is still unanswered, or
   * `payload` is that very request again (a late reply can then only be its reply).
   */
  canCarry(payload: Buffer): boolean {
    return this.held === undefined || !this.heldSent || this.lateReply !== undefined || this.held.equals(payload);
  }

  /** Sends one request (after the handshake) and resolves with its reply. */
  exchange(payload: Buffer): Promise<Buffer> {
    if (this.ended) return Promise.reject(new TransportError('TRANSPORT', `${this.address} closed the connection before it replied`));
    return new Promise<Buffer>((resolve, reject) => {
      if (this.held?.equals(payload)) {
        // The request this connection carries, asked again: its reply, come or to come.
        const late = this.lateReply;
        if (late) {
          this.settleHeld();
          resolve(late);
        } else {
          this.pending = { resolve, reject };
        }
        return;
      }
      this.held = payload;
      this.heldSent = false;
      this.lateReply = undefined;
      this.pending = { resolve, reject };
      if (this.ready) this.sendHeld();
    });
  }

  /** The caller stopped waiting (a timeout); the request stays, for a resend of the same bytes. */
  abandon(): void {
    this.pending = undefined;
  }

  destroy(): void {
    this.ended = true;
    this.socket.destroy();
  }

  private sendHeld(): void {
    this.heldSent = true;
    this.readsBeforeSend = this.reads;
    this.socket.write(Buffer.concat([zmtpFrame(MORE, Buffer.alloc(0)), zmtpFrame(0, this.held!)]));
  }

  private settleHeld(): void {
    this.held = undefined;
    this.heldSent = false;
    this.lateReply = undefined;
  }

  private fail(err: TransportError): void {
    if (!this.ended) this.socket.destroy();
    this.ended = true;
    this.failOpen(err);
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(err);
  }

  private onCommand(name: string, data: Buffer): void {
    if (name === 'READY') {
      if (this.ready) throw new Error('a second READY');
      const type = readyProperties(data).get('socket-type');
      if (type === undefined || !PEER_TYPES.has(type)) throw new Error(`the peer is a ${type ?? 'socket of no type'}, not a REP or ROUTER`);
      this.ready = true;
      this.markOpened();
      if (this.held) this.sendHeld();
    } else if (name === 'ERROR') {
      // libzmq sends this when the peer's authentication (the master's admit) refused us.
      const reason = data.length >= 1 ? data.toString('latin1', 1, 1 + data[0]) : '';
      this.fail(new TransportError('TRANSPORT', `${this.address} refused the connection${reason ? ` (${reason})` : ''}`));
    } else if (name === 'PING') {
      // Heartbeat: PONG carries back the context after the 2-byte TTL.
      if (data.length < 2) throw new Error('a PING without its TTL');
      this.socket.write(zmtpCommand('PONG', data.subarray(2)));
    }
    // Any other command (PONG, a future one) needs nothing from a REQ.
  }

  private onMessage(frames: Buffer[]): void {
    if (!this.ready) throw new Error('a message before READY');
    // As a REQ socket: a reply is the frames after an empty delimiter; anything else is dropped,
    // as is a reply to no request.
    // A message read with the READY that sent the request (the same chunk) was sent before it.
    if (frames.length < 2 || frames[0].length !== 0 || !this.heldSent || this.reads <= this.readsBeforeSend || this.lateReply) return;
    const body = frames[frames.length - 1];
    const pending = this.pending;
    if (!pending) {
      this.lateReply = body;
      return;
    }
    this.pending = undefined;
    this.settleHeld();
    pending.resolve(body);
  }
}

/**
 * A REQ client with a queue: one request in flight at a time. The connection is made on the
 * first request and kept for the next; a request that times out or fails drops it, so a late
 * reply is never taken for the next request's (a request that timed out in the master's accept
 * queue keeps it: see the top of this file). Connecting is retried, every `reconnectInterval`
 * ms (doubling up to `reconnectMax`), until the request's time is up, as libzmq retries.
 */
export class ZmtpRequestClient implements IRequestClient {
  private connection?: Connection;
  private readonly queue = new OneAtATime();
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly options: ConnectionOptions = {},
  ) {
    endpoint(address);
  }

  /** Sends one payload and resolves with the reply payload, or rejects after timeoutMs. */
  request(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    return this.queue.run(() => this.timed(payload, timeoutMs));
  }

  close(): void {
    this.closed = true;
    this.connection?.destroy();
    this.connection = undefined;
  }

  private timed(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    if (this.closed) return Promise.reject(new TransportError('CLOSED', `the connection to ${this.address} is closed`));
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const attempt = { unreachable: undefined as TransportError | undefined };
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        const why = attempt.unreachable ? ` (${attempt.unreachable.message})` : '';
        reject(new TransportError('TIMEOUT', `no reply from ${this.address} within ${timeoutMs} ms${why}`, { cause: attempt.unreachable }));
      }, timeoutMs);
    });
    const exchange = this.exchange(payload, () => timedOut, attempt);
    exchange.catch(() => undefined);
    return Promise.race([exchange, timeout]).then(
      (reply) => {
        clearTimeout(timer);
        return reply;
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (timedOut && this.connection?.awaitingAccept) {
          // Not yet taken by the master: a new connection would wait behind all those that came
          // since. This one keeps the request; a different next request replaces it unsent.
          this.connection.abandon();
        } else {
          // The reply may still come: on a connection of its own it can never answer another request.
          this.connection?.destroy();
          this.connection = undefined;
        }
        throw this.closed ? new TransportError('CLOSED', `the connection to ${this.address} is closed`, { cause: err }) : err;
      },
    );
  }

  private async exchange(payload: Buffer, timedOut: () => boolean, attempt: { unreachable?: TransportError }): Promise<Buffer> {
    let delay = this.options.reconnectInterval ?? 100;
    for (;;) {
      if (!this.connection || this.connection.isEnded || !this.connection.canCarry(payload)) {
        this.connection?.destroy();
        this.connection = new Connection(this.address, this.options);
      }
      const connection = this.connection;
      // Handed over before the handshake ends: a request a kept connection holds unsent is
      // replaced now, before the master's READY could send it.
      const reply = connection.exchange(payload);
      reply.catch(() => undefined);
      try {
        await connection.opened;
        return await reply;
      } catch (err) {
        // Only a connection that never opened is tried again: a request once sent is never resent.
        if (connection.wasOpened || timedOut() || this.closed || !isUnreachable(err)) throw err;
        attempt.unreachable = err as TransportError;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (timedOut() || this.closed) throw new TransportError('TIMEOUT', `no reply from ${this.address}`);
      const max = this.options.reconnectMax ?? 0;
      if (max > delay) delay = Math.min(delay * 2, max);
    }
  }
}

/**
 * Why a connection could not be made that may pass within the request's time: nobody listens there
 * yet (the master is starting), or the network or its name service is down for a moment.
 */
const PASSING = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);

/** A connection that failed for a reason that may pass (PASSING): worth trying again. */
function isUnreachable(err: unknown): boolean {
  const code = ((err as { cause?: NodeJS.ErrnoException }).cause ?? {}).code;
  return code !== undefined && PASSING.has(code);
}
