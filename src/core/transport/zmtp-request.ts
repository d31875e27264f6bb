/**
 * A ZeroMQ REQ client in plain Node for the commands that run beside a master and make a few
 * requests to it (salt, salt-run, salt-key, salt-cp, salt-api): ZMTP 3.1 (rfc.zeromq.org/spec/37)
 * with the NULL mechanism, what a master's request port speaks (a libzmq ROUTER, in Salt's master
 * and in brine's). Messages go as a REQ socket sends them: an empty delimiter frame, then the
 * payload; the reply comes back behind the same delimiter.
 *
 * Why not libzmq, as the daemons use (zeromq.ts): loading it and opening one socket cost the `salt`
 * CLI 3.7 MiB of its 51 MiB peak (docs/scaling.md), for one request. The daemons keep libzmq: it
 * queues, batches and reconnects for thousands of peers, and the publish port needs it.
 *
 * Where it differs from a libzmq REQ socket: a connection that ends before the reply (the master
 * stopped, or refused the connection at its handshake) fails the request at once with TRANSPORT,
 * rather than leaving it to time out; no request is ever sent twice.
 */
import { createConnection, type Socket } from 'node:net';
import { TransportError } from '../errors';
import type { IRequestClient, ReconnectOptions } from './types';
import { OneAtATime } from './one-at-a-time';

const MORE = 0x01;
const LONG = 0x02;
const COMMAND = 0x04;
/** The largest reply taken (a frame's header over it is refused before its bytes are held). */
const MAX_FRAME_BYTES = 256 * 1024 * 1024;
const GREETING_BYTES = 64;

/**
 * Our greeting: signature (0xFF, eight bytes of padding, 0x7F; libzmq sets the last padding byte
 * to 1 so a ZMTP 1.0 peer reads a one-byte identity), version 3.1, mechanism NULL, not the server.
 */
const GREETING = (() => {
  const g = Buffer.alloc(GREETING_BYTES);
  g[0] = 0xff;
  g[8] = 0x01;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = 1;
  g.write('NULL', 12, 'latin1');
  return g;
})();

/** The header and body of one frame. */
export function zmtpFrame(flags: number, body: Buffer): Buffer {
  if (body.length <= 0xff) return Buffer.concat([Buffer.from([flags, body.length]), body]);
  const head = Buffer.alloc(9);
  head[0] = flags | LONG;
  head.writeBigUInt64BE(BigInt(body.length), 1);
  return Buffer.concat([head, body]);
}

/** A command frame: its name, then its data. */
function command(name: string, data: Buffer): Buffer {
  return zmtpFrame(COMMAND, Buffer.concat([Buffer.from([name.length]), Buffer.from(name, 'latin1'), data]));
}

/** READY with the metadata property Socket-Type. */
const READY = (() => {
  const name = Buffer.from('Socket-Type', 'latin1');
  const value = Buffer.from('REQ', 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(value.length);
  return command('READY', Buffer.concat([Buffer.from([name.length]), name, size, value]));
})();

/** The socket types a REQ may talk to (ZMTP 3.1, "Socket type compatibility"). */
const PEER_TYPES = new Set(['REP', 'ROUTER']);

/** A READY command's metadata: name (1-byte length) and value (4-byte length), repeated. */
function readyProperties(data: Buffer): Map<string, string> {
  const props = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const nameLen = data[at];
    if (at + 1 + nameLen + 4 > data.length) throw new Error('a READY property runs past its command');
    const name = data.toString('latin1', at + 1, at + 1 + nameLen);
    const valueLen = data.readUInt32BE(at + 1 + nameLen);
    const start = at + 1 + nameLen + 4;
    if (start + valueLen > data.length) throw new Error(`READY property ${name} runs past its command`);
    props.set(name.toLowerCase(), data.toString('latin1', start, start + valueLen));
    at = start + valueLen;
  }
  return props;
}

/** Where to connect: `tcp://host:port` (host may be `[v6]`) or `ipc://path`. */
function endpoint(address: string): { host: string; port: number } | { path: string } {
  if (address.startsWith('ipc://') && address.length > 'ipc://'.length) return { path: address.slice('ipc://'.length) };
  const m = /^tcp:\/\/(?:\[([^\]]+)\]|([^:/]+)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new TransportError('TRANSPORT', `"${address}" is not an address a request can go to`, {
      hint: 'give tcp://HOST:PORT or ipc://PATH',
    });
  }
  return { host: m[1] ?? m[2], port };
}

/** Bytes as they arrive, taken in exact counts (replies come in many reads; copy each byte once). */
class Bytes {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The first n bytes, without taking them (n <= length). */
  peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }

  take(n: number): Buffer {
    const out = this.peek(n);
    const first = this.chunks[0];
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.length -= n;
    return out;
  }
}

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
  private readonly input = new Bytes();
  private greeted = false;
  private ready = false;
  private ended = false;
  private frames: Buffer[] = [];
  private frameBytes = 0;
  private pending?: Pending;
  private queued?: Buffer;
  /** Settles when the handshake is done, or the connection fails first. */
  readonly opened: Promise<void>;
  private markOpened!: () => void;
  private failOpen!: (err: TransportError) => void;

  constructor(private readonly address: string) {
    this.opened = new Promise<void>((resolve, reject) => {
      this.markOpened = resolve;
      this.failOpen = reject;
    });
    // Nobody may be waiting on it yet (a request that timed out before the connection failed).
    this.opened.catch(() => undefined);
    this.socket = createConnection(endpoint(address));
    this.socket.setNoDelay(true);
    this.socket.write(Buffer.concat([GREETING, READY]));
    this.socket.on('data', (chunk: Buffer) => {
      this.input.push(chunk);
      try {
        this.read();
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

  /** Sends one request (after the handshake) and resolves with its reply. */
  exchange(payload: Buffer): Promise<Buffer> {
    if (this.ended) return Promise.reject(new TransportError('TRANSPORT', `${this.address} closed the connection before it replied`));
    return new Promise<Buffer>((resolve, reject) => {
      this.pending = { resolve, reject };
      if (this.ready) this.send(payload);
      else this.queued = payload;
    });
  }

  destroy(): void {
    this.ended = true;
    this.socket.destroy();
  }

  private send(payload: Buffer): void {
    this.socket.write(Buffer.concat([zmtpFrame(MORE, Buffer.alloc(0)), zmtpFrame(0, payload)]));
  }

  private fail(err: TransportError): void {
    if (!this.ended) this.socket.destroy();
    this.ended = true;
    this.failOpen(err);
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(err);
  }

  private read(): void {
    if (!this.greeted) {
      if (this.input.length < GREETING_BYTES) {
        // The signature alone tells a peer that is no ZMTP 3 one: do not wait for 64 bytes from it.
        if (this.input.length >= 1 && this.input.peek(1)[0] !== 0xff) throw new Error('no ZMTP signature');
        return;
      }
      checkGreeting(this.input.take(GREETING_BYTES));
      this.greeted = true;
    }
    while (!this.ended && this.input.length >= 2) {
      const head = this.input.peek(Math.min(this.input.length, 9));
      const flags = head[0];
      if (flags & ~(MORE | LONG | COMMAND)) throw new Error(`a frame has reserved flag bits set (0x${flags.toString(16)})`);
      const headBytes = flags & LONG ? 9 : 2;
      if (head.length < headBytes) return;
      const size = flags & LONG ? head.readBigUInt64BE(1) : BigInt(head[1]);
      if (size > BigInt(MAX_FRAME_BYTES)) throw new Error(`a frame of ${size} bytes is more than the ${MAX_FRAME_BYTES} taken`);
      if (this.input.length < headBytes + Number(size)) return;
      this.input.take(headBytes);
      const body = Buffer.from(this.input.take(Number(size)));
      if (flags & COMMAND) this.onCommand(body);
      else this.onFrame(body, (flags & MORE) !== 0);
    }
  }

  private onCommand(body: Buffer): void {
    if (body.length < 1 || body.length < 1 + body[0]) throw new Error('a command frame without its name');
    const name = body.toString('latin1', 1, 1 + body[0]);
    const data = body.subarray(1 + body[0]);
    if (name === 'READY') {
      if (this.ready) throw new Error('a second READY');
      const type = readyProperties(data).get('socket-type');
      if (type === undefined || !PEER_TYPES.has(type)) throw new Error(`the peer is a ${type ?? 'socket of no type'}, not a REP or ROUTER`);
      this.ready = true;
      this.markOpened();
      if (this.queued) {
        this.send(this.queued);
        this.queued = undefined;
      }
    } else if (name === 'ERROR') {
      // libzmq sends this when the peer's authentication (the master's admit) refused us.
      const reason = data.length >= 1 ? data.toString('latin1', 1, 1 + data[0]) : '';
      this.fail(new TransportError('TRANSPORT', `${this.address} refused the connection${reason ? ` (${reason})` : ''}`));
    } else if (name === 'PING') {
      // Heartbeat: PONG carries back the context after the 2-byte TTL.
      if (data.length < 2) throw new Error('a PING without its TTL');
      this.socket.write(command('PONG', data.subarray(2)));
    }
    // Any other command (PONG, a future one) needs nothing from a REQ.
  }

  private onFrame(body: Buffer, more: boolean): void {
    if (!this.ready) throw new Error('a message before READY');
    this.frameBytes += body.length;
    if (this.frameBytes > MAX_FRAME_BYTES) throw new Error(`a message of more than the ${MAX_FRAME_BYTES} bytes taken`);
    this.frames.push(body);
    if (more) return;
    const frames = this.frames;
    this.frames = [];
    this.frameBytes = 0;
    // As a REQ socket: a reply is the frames after an empty delimiter; anything else is dropped.
    if (frames.length < 2 || frames[0].length !== 0 || !this.pending) return;
    const pending = this.pending;
    this.pending = undefined;
    pending.resolve(frames[frames.length - 1]);
  }
}

/** The peer's greeting: ZMTP 3 or later, with the NULL mechanism. */
function checkGreeting(g: Buffer): void {
  if (g[0] !== 0xff || (g[9] & 0x01) !== 0x01) throw new Error('no ZMTP signature');
  if (g[10] < 3) throw new Error(`it speaks ZMTP ${g[10]}.x; version 3 or later is needed (libzmq 4 and later)`);
  const mechanism = g.toString('latin1', 12, 32).replace(/\0+$/, '');
  if (mechanism !== 'NULL') throw new Error(`it asks for the ${mechanism} mechanism; a master's request port uses NULL`);
}

/**
 * A REQ client with a queue: one request in flight at a time. The connection is made on the
 * first request and kept for the next; a request that times out or fails drops it, so a late
 * reply is never taken for the next request's. Connecting is retried, every `reconnectInterval`
 * ms (doubling up to `reconnectMax`), until the request's time is up, as libzmq retries.
 */
export class ZmtpRequestClient implements IRequestClient {
  private connection?: Connection;
  private readonly queue = new OneAtATime();
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly options: ReconnectOptions = {},
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
        // The reply may still come: on a connection of its own it can never answer another request.
        this.connection?.destroy();
        this.connection = undefined;
        throw this.closed ? new TransportError('CLOSED', `the connection to ${this.address} is closed`, { cause: err }) : err;
      },
    );
  }

  private async exchange(payload: Buffer, timedOut: () => boolean, attempt: { unreachable?: TransportError }): Promise<Buffer> {
    let delay = this.options.reconnectInterval ?? 100;
    for (;;) {
      if (!this.connection || this.connection.isEnded) {
        this.connection = new Connection(this.address);
      }
      const connection = this.connection;
      try {
        await connection.opened;
        return await connection.exchange(payload);
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

/** Nobody listens there yet (the master is starting): worth trying again. */
function isUnreachable(err: unknown): boolean {
  const code = ((err as { cause?: NodeJS.ErrnoException }).cause ?? {}).code;
  return code === 'ECONNREFUSED' || code === 'ENOENT';
}
