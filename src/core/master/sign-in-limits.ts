/**
 * What unauthenticated sign-ins may cost the master: a bounded number of pending key files
 * (`max_pending_keys`), a bounded rate of new connections per address (`connection_rate_limit`)
 * and of `_auth` requests per connection (`auth_rate_limit`).
 */
import { RepeatedWarning, type Logger } from '../log';

/** Salt has no cap; brine's default leaves room for a large roll-out between two `salt-key -A`. */
export const DEFAULT_MAX_PENDING_KEYS = 1000;
/** `_auth` requests per connection per second; a minion sends one every few seconds at most. */
export const DEFAULT_AUTH_RATE_LIMIT = 10;
/**
 * New request-port connections per address per second. A Salt minion opens a connection for
 * many of its requests (each return, event, file) and several minions can share an address
 * behind NAT, so the default leaves room for that while a flood from one address is cut.
 */
export const DEFAULT_CONNECTION_RATE_LIMIT = 100;

/**
 * `max_pending_keys`: once that many keys wait in minions_pre, a new id is answered "pending"
 * without a file (it signs in again later, as any pending minion does), and the refusals are
 * logged once a minute with their count rather than once each.
 */
export class PendingKeyCap {
  private readonly refused: RepeatedWarning;

  constructor(
    readonly max: number,
    log: Logger,
    now: () => number = Date.now,
  ) {
    this.refused = new RepeatedWarning(log, 60_000, now);
  }

  /** Whether one more pending key may be written, given how many wait now. */
  allows(pendingNow: number): boolean {
    if (pendingNow < this.max) return true;
    this.refused.note(
      (n) =>
        `max_pending_keys (${this.max}) keys are waiting in minions_pre: the keys of ${n} new minion(s) were not stored ` +
        `since the last report; accept or delete pending keys with salt-key, or raise max_pending_keys`,
    );
    return false;
  }
}

/** Counts per key in one-second windows; memory is bounded by the keys seen within one second. */
class PerSecondCounter {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Counts one more for key and returns the count in the current second. */
  add(key: string): number {
    const w = Math.floor(this.now() / 1000);
    if (w !== this.window) {
      this.window = w;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }
}

/**
 * `auth_rate_limit`: at most that many `_auth` requests per connection in each one-second window.
 * A request carries its connection (routing id), not its address: addresses are limited when a
 * connection opens (ConnectionRateLimit).
 */
export class SignInRateLimit {
  private readonly counter: PerSecondCounter;

  constructor(
    readonly perSecond: number,
    now: () => number = Date.now,
  ) {
    this.counter = new PerSecondCounter(now);
  }

  allow(peer: Buffer | undefined): boolean {
    return this.counter.add(peer === undefined ? '' : peer.toString('latin1')) <= this.perSecond;
  }
}

/**
 * `connection_rate_limit`: at most that many new connections to the request port from one
 * address in each one-second window; more are refused during the handshake (the transport's
 * `admit`), before they can send a sign-in. Refusals are logged once a minute with their count.
 * With `auth_rate_limit` this bounds the sign-ins an address can start: each connection it
 * opens may carry `auth_rate_limit` per second, and it opens at most this many per second.
 */
export class ConnectionRateLimit {
  private readonly counter: PerSecondCounter;
  private readonly refused: RepeatedWarning;

  constructor(
    readonly perSecond: number,
    log: Logger,
    now: () => number = Date.now,
  ) {
    this.counter = new PerSecondCounter(now);
    this.refused = new RepeatedWarning(log, 60_000, now);
  }

  allow(address: string): boolean {
    if (this.counter.add(address) <= this.perSecond) return true;
    this.refused.note(
      (n) =>
        `Refused ${n} connection(s) to the request port since the last report: more than connection_rate_limit ` +
        `(${this.perSecond}) new connections per second from one address (last: ${address}); raise connection_rate_limit ` +
        'if many minions share that address',
    );
    return false;
  }
}
