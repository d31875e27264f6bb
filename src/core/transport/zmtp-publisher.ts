/**
 * The master's publish port in plain Node (zmtp-server.ts): a ZeroMQ PUB for SUB and XSUB peers
 * (Salt's minions and brine's). A subscriber's subscriptions come as ZMTP 3.1's SUBSCRIBE and
 * CANCEL commands or as ZMTP 3.0's messages (first byte 1 to subscribe, 0 to cancel, then the
 * prefix); a publication goes to every subscriber with a prefix of its first frame, encoded once
 * and the same bytes written to each. A subscriber that has `highWaterMark` publications of that
 * size still unsent (it reads too slowly) misses this one, as libzmq's PUB drops at its pub_hwm;
 * 0 means no limit, as in libzmq.
 */
import type { TransportError } from '../errors';
import type { IPublishServer } from './types';
import { encodeMessage } from './zmtp';
import { ZmtpPort, type ZmtpPeer } from './zmtp-server';

/**
 * One subscriber's prefixes, each with how many times it was subscribed (libzmq counts them too).
 * Every minion subscribes to everything (the empty prefix) and to nothing else: that is a count,
 * and a Map is made only for other prefixes (a Map of one entry is about 300 bytes, 3 MiB of the
 * publish process at 10,000 minions).
 */
class Subscriptions {
  /** Times subscribed to everything (the empty prefix). */
  private everything = 0;
  private prefixes?: Map<string, number>;

  change(prefix: Buffer, subscribe: boolean): void {
    if (prefix.length === 0) {
      this.everything = Math.max(0, this.everything + (subscribe ? 1 : -1));
      return;
    }
    const key = prefix.toString('latin1');
    const prefixes = (this.prefixes ??= new Map<string, number>());
    const count = (prefixes.get(key) ?? 0) + (subscribe ? 1 : -1);
    if (count > 0) prefixes.set(key, count);
    else prefixes.delete(key);
  }

  matches(topic: Buffer): boolean {
    if (this.everything > 0) return true;
    for (const prefix of this.prefixes?.keys() ?? []) {
      if (prefix.length <= topic.length && topic.toString('latin1', 0, prefix.length) === prefix) return true;
    }
    return false;
  }
}

/** Subscribers written to in one turn of the event loop. */
const FAN_OUT_BATCH = 1000;

export class ZmtpPublishServer implements IPublishServer {
  private readonly port: ZmtpPort;
  private readonly subscribers = new Map<ZmtpPeer, Subscriptions>();
  private readonly highWaterMark: number;
  /** Publications a subscriber missed at the high-water mark, since the port opened. */
  dropped = 0;
  private readonly fanOutBatch: number;
  /** The last publication's fan-out, and how many are under way or waiting. */
  private fanning: Promise<void> = Promise.resolve();
  private fanningCount = 0;

  /** `onWarning`: trouble taking connections (see ZmtpPortOptions); `fanOutBatch`: subscribers written to a turn (1000). */
  constructor(options: { highWaterMark?: number; backlog?: number; fanOutBatch?: number; onWarning?: (err: TransportError) => void } = {}) {
    this.highWaterMark = options.highWaterMark ?? 1000;
    this.fanOutBatch = Math.max(1, options.fanOutBatch ?? FAN_OUT_BATCH);
    this.port = new ZmtpPort({
      socketType: 'PUB',
      peerTypes: new Set(['SUB', 'XSUB']),
      backlog: options.backlog,
      onWarning: options.onWarning,
      onPeer: (peer) => this.subscribers.set(peer, new Subscriptions()),
      onGone: (peer) => this.subscribers.delete(peer),
      onCommand: (peer, name, data) => {
        if (name === 'SUBSCRIBE' || name === 'CANCEL') this.subscribers.get(peer)?.change(data, name === 'SUBSCRIBE');
      },
      onMessage: (peer, frames) => {
        // ZMTP 3.0's subscriptions; any other message to a PUB is dropped, as libzmq does.
        const [first] = frames;
        if (frames.length === 1 && first.length >= 1 && first[0] <= 1)
          this.subscribers.get(peer)?.change(first.subarray(1), first[0] === 1);
      },
    });
  }

  bind(address: string): Promise<void> {
    return this.port.bind(address, 'for subscribers');
  }

  publish(frames: Buffer[]): Promise<void> {
    const bytes = encodeMessage(frames);
    const topic = frames[0] ?? Buffer.alloc(0);
    // One publication after the other, so that each subscriber gets them in the order given; with
    // none under way, its first batch (all of it, up to fanOutBatch subscribers) is written at once.
    const run = () => this.fanOut(bytes, topic).finally(() => this.fanningCount--);
    const done = this.fanningCount > 0 ? this.fanning.then(run) : run();
    this.fanningCount++;
    this.fanning = done.catch(() => undefined);
    return done;
  }

  /**
   * Writes the publication to its subscribers `fanOutBatch` at a time, letting the event loop turn
   * between batches: each write leaves a request object that lives until libuv reports it done,
   * and 10,000 made in one turn outlive V8's young generation together. At 10,000 minions the
   * publish process's peak fell 89.0 -> 84.7 MiB (sampled every 10 ms through a run), and the
   * loop, not blocked for the whole fan-out, takes its subscribers' commands between batches.
   */
  private async fanOut(bytes: Buffer, topic: Buffer): Promise<void> {
    const limit = this.highWaterMark > 0 ? this.highWaterMark * bytes.length : Infinity;
    const peers = [...this.subscribers];
    for (let i = 0; i < peers.length; i++) {
      if (i > 0 && i % this.fanOutBatch === 0) await new Promise((resolve) => setImmediate(resolve));
      const [peer, subscriptions] = peers[i];
      if (!subscriptions.matches(topic)) continue;
      if (peer.queuedBytes >= limit) this.dropped++;
      else peer.write(bytes);
    }
  }

  close(): Promise<void> {
    this.subscribers.clear();
    return this.port.close();
  }
}
