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
import { Inbox } from './inbox';
import { SubscriptionState } from './subscription-state';
import type { ISubscribeClient, ConnectionOptions } from './types';
import { GREETING, ZmtpReader, readyCommand, readyProperties, zmtpCommand, connectOptions, zmtpConnectEndpoint, zmtpFrame } from './zmtp';

const READY = readyCommand('SUB');
/** ZMTP 3.0's subscription to every topic: a message of one byte, 1, and the empty prefix. */
const SUBSCRIBE_ALL = zmtpFrame(0, Buffer.from([1]));
/** The socket types a SUB may talk to (ZMTP 3.1, "Socket type compatibility"). */
const PEER_TYPES = new Set(['PUB', 'XPUB']);
/** libzmq's ZMQ_HANDSHAKE_IVL default. */
const HANDSHAKE_MS = 30_000;

export interface ZmtpSubscribeOptions extends ConnectionOptions {
  /** Messages held unread before the connection stops being read (libzmq's ZMQ_RCVHWM; default 1000). */
  receiveHighWaterMark?: number;
}

/** Where to connect (port 0 is for listening only). */
const endpoint = (address: string) => zmtpConnectEndpoint(address, 'a subscription can connect to');

export class ZmtpSubscribeClient implements ISubscribeClient {
  private where?: ReturnType<typeof zmtpConnectEndpoint>;
  private socket?: Socket;
  private readonly state = new SubscriptionState();
  private closed = false;
  private delay: number;
  private retry?: NodeJS.Timeout;
  /** Messages read and not yet taken by messages(). */
  private readonly inbox = new Inbox<Buffer[]>();
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
    return this.state.whenConnected();
  }

  get isConnected(): boolean {
    return this.state.isConnected;
  }

  onReconnect(listener: (downSince: number) => void): void {
    this.state.onReconnect(listener);
  }

  async *messages(): AsyncGenerator<Buffer[]> {
    for (;;) {
      const frames = await this.inbox.take();
      // What was read and not taken when it closed is dropped, as libzmq's close drops it.
      if (frames === null || this.closed) return;
      // Reading again once half the high-water mark is taken.
      if (this.inbox.length < this.highWaterMark / 2 && this.socket?.isPaused()) this.socket.resume();
      yield frames;
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.socket?.destroy();
    this.socket = undefined;
    this.state.down();
    this.inbox.end();
  }

  private get firstDelay(): number {
    return this.options.reconnectInterval ?? 1000;
  }

  private open(): void {
    const socket = createConnection(connectOptions(this.where!, this.options.source));
    this.socket = socket;
    socket.setNoDelay(true);
    const keepAlive = this.options.keepAlive;
    if (keepAlive) socket.setKeepAlive(true, Math.max(0, keepAlive.idleSeconds) * 1000);
    // A publisher that takes the connection and never finishes its handshake is dropped.
    const handshake = setTimeout(() => socket.destroy(), HANDSHAKE_MS);
    const reader = new ZmtpReader({
      command: (name, data) => {
        if (name === 'READY') {
          if (this.socket !== socket || this.state.isConnected) throw new Error('a second READY');
          const type = readyProperties(data).get('socket-type');
          if (type === undefined || !PEER_TYPES.has(type))
            throw new Error(`the peer is a ${type ?? 'socket of no type'}, not a PUB or XPUB`);
          clearTimeout(handshake);
          socket.write(SUBSCRIBE_ALL);
          this.delay = this.firstDelay;
          this.state.up();
        } else if (name === 'ERROR') {
          throw new Error('the publisher refused the connection');
        } else if (name === 'PING') {
          if (data.length < 2) throw new Error('a PING without its TTL');
          socket.write(zmtpCommand('PONG', data.subarray(2)));
        }
        // Any other command needs nothing from a SUB.
      },
      message: (frames) => {
        if (this.socket !== socket || !this.state.isConnected) throw new Error('a message before READY');
        this.inbox.push(frames);
        if (this.inbox.length >= this.highWaterMark) socket.pause();
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

  private down(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.state.down();
    if (this.closed) return;
    this.retry = setTimeout(() => {
      if (!this.closed) this.open();
    }, this.delay);
    const max = this.options.reconnectMax ?? 0;
    if (max > this.delay) this.delay = Math.min(this.delay * 2, max);
  }
}
