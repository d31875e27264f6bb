/**
 * A minion's subscription to the master's publish port in plain Node: a ZeroMQ SUB speaking ZMTP
 * 3.1 with the NULL mechanism (zmtp.ts) to a PUB or XPUB, libzmq's in Salt's master and Node's in
 * brine's (zmtp-publisher.ts). It subscribes to every topic, with ZMTP 3.0's subscription message
 * (a first byte of 1), which every ZMTP 3 publisher takes.
 *
 * Why not libzmq: a minion loads libzmq for its two connections alone, and it costs the process
 * two threads and about 5 MiB (docs/scaling.md, "A minion without libzmq").
 *
 * It behaves as the libzmq SUB it replaces: it connects at once and again after a drop, every
 * `reconnectInterval` ms, doubling up to `reconnectMax` (libzmq's ZMQ_RECONNECT_IVL and
 * ZMQ_RECONNECT_IVL_MAX; the delay starts over once a connection is up); a publisher that does not
 * finish its handshake within 30 s (libzmq's ZMQ_HANDSHAKE_IVL) or sends what is not ZMTP is
 * dropped and connected to again; and once `receiveHighWaterMark` messages wait to be read, it
 * stops reading the connection (TCP holds the rest, and the publisher drops at its own high-water
 * mark), as libzmq's SUB stops reading its pipe.
 */
import { createConnection, type Socket } from 'node:net';
import { TransportError } from '../errors';
import type { ISubscribeClient, SubscribeOptions } from './types';
import { GREETING, ZmtpReader, readyCommand, readyProperties, zmtpCommand, zmtpEndpoint, zmtpFrame } from './zmtp';

const READY = readyCommand('SUB');
/** ZMTP 3.0's subscription to every topic: a message of one byte, 1, and the empty prefix. */
const SUBSCRIBE_ALL = zmtpFrame(0, Buffer.from([1]));
/** The socket types a SUB may talk to (ZMTP 3.1, "Socket type compatibility"). */
const PEER_TYPES = new Set(['PUB', 'XPUB']);
/** libzmq's ZMQ_HANDSHAKE_IVL default. */
const HANDSHAKE_MS = 30_000;

export interface ZmtpSubscribeOptions extends SubscribeOptions {
  /** Messages held unread before the connection stops being read (libzmq's ZMQ_RCVHWM; default 1000). */
  receiveHighWaterMark?: number;
}

/** Where to connect: port 0 is for listening only. */
function endpoint(address: string): ReturnType<typeof zmtpEndpoint> {
  const where = zmtpEndpoint(address, 'a subscription can connect to');
  if ('port' in where && where.port === 0) {
    throw new TransportError('TRANSPORT', `"${address}" is not an address a subscription can connect to: port 0`, {
      hint: 'give tcp://HOST:PORT or ipc://PATH',
    });
  }
  return where;
}

export class ZmtpSubscribeClient implements ISubscribeClient {
  private where?: ReturnType<typeof zmtpEndpoint>;
  private socket?: Socket;
  private connected = false;
  private everConnected = false;
  private closed = false;
  private downSince = 0;
  private delay: number;
  private retry?: NodeJS.Timeout;
  private readonly waiters: Array<() => void> = [];
  private readonly reconnectListeners: Array<(downSince: number) => void> = [];
  /** Messages read and not yet taken by messages(), oldest first. */
  private inbox: Buffer[][] = [];
  private inboxStart = 0;
  private wakeReader?: () => void;
  private readonly highWaterMark: number;

  constructor(private readonly options: ZmtpSubscribeOptions = {}) {
    this.delay = this.firstDelay;
    this.highWaterMark = Math.max(1, options.receiveHighWaterMark ?? 1000);
  }

  connect(address: string): void {
    if (this.where) throw new TransportError('TRANSPORT', `this subscription already connects elsewhere; not also to ${address}`);
    this.where = endpoint(address);
    this.open();
  }

  /** Resolves once the handshake with the publisher is done and the subscription sent. */
  whenConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  get isConnected(): boolean {
    return this.connected;
  }

  onReconnect(listener: (downSince: number) => void): void {
    this.reconnectListeners.push(listener);
  }

  async *messages(): AsyncGenerator<Buffer[]> {
    while (!this.closed) {
      const frames = this.take();
      if (frames) yield frames;
      else await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = false;
    this.inbox = [];
    this.inboxStart = 0;
    this.wake();
  }

  private get firstDelay(): number {
    return this.options.reconnectInterval ?? 1000;
  }

  private open(): void {
    const socket = createConnection(this.where!);
    this.socket = socket;
    socket.setNoDelay(true);
    const keepAlive = this.options.keepAlive;
    if (keepAlive) socket.setKeepAlive(true, Math.max(0, keepAlive.idleSeconds) * 1000);
    // A publisher that takes the connection and never finishes its handshake is dropped.
    const handshake = setTimeout(() => socket.destroy(), HANDSHAKE_MS);
    const reader = new ZmtpReader({
      command: (name, data) => {
        if (name === 'READY') {
          if (this.socket !== socket || this.connected) throw new Error('a second READY');
          const type = readyProperties(data).get('socket-type');
          if (type === undefined || !PEER_TYPES.has(type))
            throw new Error(`the peer is a ${type ?? 'socket of no type'}, not a PUB or XPUB`);
          clearTimeout(handshake);
          socket.write(SUBSCRIBE_ALL);
          this.up();
        } else if (name === 'ERROR') {
          throw new Error('the publisher refused the connection');
        } else if (name === 'PING') {
          if (data.length < 2) throw new Error('a PING without its TTL');
          socket.write(zmtpCommand('PONG', data.subarray(2)));
        }
        // Any other command needs nothing from a SUB.
      },
      message: (frames) => {
        if (this.socket !== socket || !this.connected) throw new Error('a message before READY');
        this.inbox.push(frames);
        if (this.inbox.length - this.inboxStart >= this.highWaterMark) socket.pause();
        this.wake();
      },
    });
    socket.write(Buffer.concat([GREETING, READY]));
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        // Not ZMTP, or not a publisher: as libzmq, drop the connection and make a new one.
        reader.stopped = true;
        socket.destroy();
      }
    });
    // 'close' follows every error: the reconnect is decided there.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(handshake);
      this.down(socket);
    });
  }

  private up(): void {
    this.delay = this.firstDelay;
    const again = this.everConnected;
    this.connected = true;
    this.everConnected = true;
    this.waiters.splice(0).forEach((resolve) => resolve());
    if (again) this.reconnectListeners.forEach((listener) => listener(this.downSince));
  }

  private down(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    if (this.connected) this.downSince = Date.now();
    this.connected = false;
    if (this.closed) return;
    this.retry = setTimeout(() => {
      if (!this.closed) this.open();
    }, this.delay);
    const max = this.options.reconnectMax ?? 0;
    if (max > this.delay) this.delay = Math.min(this.delay * 2, max);
  }

  /** The oldest unread message, reading the connection again once the inbox is half empty. */
  private take(): Buffer[] | undefined {
    if (this.inboxStart >= this.inbox.length) return undefined;
    const frames = this.inbox[this.inboxStart++];
    const waiting = this.inbox.length - this.inboxStart;
    if (waiting === 0) {
      this.inbox = [];
      this.inboxStart = 0;
    } else if (this.inboxStart >= 1024) {
      // Never empty for long (a steady stream): let go of what was taken.
      this.inbox = this.inbox.slice(this.inboxStart);
      this.inboxStart = 0;
    }
    if (waiting < this.highWaterMark / 2 && this.socket?.isPaused()) this.socket.resume();
    return frames;
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }
}
