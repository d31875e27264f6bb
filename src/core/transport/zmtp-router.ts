/**
 * The master's request port in plain Node (zmtp-server.ts): a ZeroMQ ROUTER for REQ and DEALER
 * peers (Salt's minions, brine's, the commands' ZMTP client). Each request is a message of an
 * empty delimiter and one payload, as REQ sends it; anything else is dropped, as before. Requests
 * are handled concurrently; the reply goes back on the connection it came from, or nowhere if
 * that connection is gone (as a ROUTER drops a reply to a peer it no longer has).
 */
import type { IRequestServer, Peer, RequestServe, RequestServerOptions } from './types';
import { encodeMessage } from './zmtp';
import { ZmtpPort, type ZmtpPeer } from './zmtp-server';

const EMPTY = Buffer.alloc(0);
/** How many requests are handled in one turn of the event loop. */
const YIELD_EVERY = 32;

export class ZmtpRequestServer implements IRequestServer {
  private readonly port: ZmtpPort;
  private readonly peers = new Map<number, ZmtpPeer>();
  private handler?: { serve: RequestServe; onError: (err: unknown) => void };
  /** Requests read and not yet handed to the handler (all of them until serve(): libzmq queues them too). */
  private queue: Array<[ZmtpPeer, Buffer]> = [];
  private head = 0;
  private draining = false;

  private readonly maxUnreadBytes: number;
  /** A warning of the port (ZmtpPortOptions.onWarning) given before serve() brought an onError. */
  private unreported?: unknown;

  /**
   * `maxUnreadBytes`: replies a peer may leave unread before it is cut off (64 MiB).
   * `maxRequestBytes`/`oversized`: see Transport.requestServer.
   */
  constructor(options: RequestServerOptions & { maxUnreadBytes?: number } = {}) {
    this.maxUnreadBytes = options.maxUnreadBytes ?? 64 * 1024 * 1024;
    const { oversized } = options;
    this.port = new ZmtpPort({
      socketType: 'ROUTER',
      peerTypes: new Set(['REQ', 'DEALER', 'ROUTER']),
      backlog: options.backlog,
      admit: options.admit,
      ...(oversized
        ? {
            maxMessageBytes: options.maxRequestBytes,
            onOversized: (peer: ZmtpPeer, before: Buffer[], bytes: number) => {
              // A request's envelope (the empty delimiter) came ahead of the payload too large.
              const reply = before.length === 1 && before[0].length === 0 ? oversized(bytes) : null;
              if (reply) this.reply(peer, reply);
              else peer.drop();
            },
          }
        : {}),
      onPeer: (peer) => this.peers.set(peer.id, peer),
      onGone: (peer) => this.peers.delete(peer.id),
      onWarning: (err) => {
        if (this.handler) this.handler.onError(err);
        else this.unreported = err;
      },
      onMessage: (peer, frames) => {
        if (frames.length !== 2 || frames[0].length !== 0) return;
        this.queue.push([peer, frames[1]]);
        this.drainSoon();
      },
    });
  }

  bind(address: string): Promise<void> {
    return this.port.bind(address, 'for requests');
  }

  serve(handler: RequestServe, onError: (err: unknown) => void): void {
    this.handler = { serve: handler, onError };
    if (this.unreported !== undefined) onError(this.unreported);
    this.unreported = undefined;
    this.drainSoon();
  }

  close(): Promise<void> {
    this.queue = [];
    this.head = 0;
    return this.port.close();
  }

  /**
   * Requests are handed on YIELD_EVERY at a time, each batch in a turn of its own. Node reads
   * every ready connection in one go (10,000 returns of a job arrive together), and handling
   * them all there held the event loop for seconds at 10,000 minions: no timer ran (the job
   * cache's group commits), nothing else was read (the RSA's answers) until the last.
   */
  private drainSoon(): void {
    if (this.draining || !this.handler) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.draining = false;
    const end = Math.min(this.queue.length, this.head + YIELD_EVERY);
    for (; this.head < end; this.head++) {
      const [peer, payload] = this.queue[this.head];
      this.handle(peer, payload);
    }
    if (this.head < this.queue.length) {
      // Under a steady flood the queue never empties: let go of the handled part now and then.
      if (this.head >= 4096) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.drainSoon();
    } else {
      this.queue = [];
      this.head = 0;
    }
  }

  private handle(peer: ZmtpPeer, payload: Buffer): void {
    const { serve, onError } = this.handler!;
    serve(payload, routingId(peer.id), () => this.peers.has(peer.id))
      .then((reply) => {
        if (reply !== null) this.reply(peer, reply);
      }, onError)
      .catch(onError);
  }

  private reply(peer: ZmtpPeer, reply: Buffer): void {
    const to = this.peers.get(peer.id);
    if (!to) return;
    // A REQ reads its reply before it asks again; a peer that sends requests and leaves
    // their replies unread would hold the master's memory without end: it is cut off.
    if (to.queuedBytes > this.maxUnreadBytes) to.drop();
    else to.write(encodeMessage([EMPTY, reply]));
  }
}

/** A peer's routing id as libzmq makes them: a zero byte, then a 32-bit number. */
function routingId(id: number): Peer {
  const buf = Buffer.alloc(5);
  buf.writeUInt32BE(id, 1);
  return buf;
}
