/**
 * What unauthenticated sign-ins may cost the master: a bounded number of pending key files
 * (`max_pending_keys`) and a bounded rate of `_auth` requests per connection (`auth_rate_limit`).
 */
import type { Logger } from '../log';

/** Salt has no cap; brine's default leaves room for a large roll-out between two `salt-key -A`. */
export const DEFAULT_MAX_PENDING_KEYS = 1000;
/** `_auth` requests per connection per second; a minion sends one every few seconds at most. */
export const DEFAULT_AUTH_RATE_LIMIT = 10;

/**
 * `max_pending_keys`: once that many keys wait in minions_pre, a new id is answered "pending"
 * without a file (it signs in again later, as any pending minion does), and the refusals are
 * logged once a minute with their count rather than once each.
 */
export class PendingKeyCap {
  private refused = 0;
  private lastLog = -Infinity;

  constructor(
    readonly max: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether one more pending key may be written, given how many wait now. */
  allows(pendingNow: number): boolean {
    if (pendingNow < this.max) return true;
    this.refused++;
    const t = this.now();
    if (t - this.lastLog >= 60_000) {
      this.log.warning(
        `max_pending_keys (${this.max}) keys are waiting in minions_pre: the keys of ${this.refused} new minion(s) were not stored ` +
          `since the last report; accept or delete pending keys with salt-key, or raise max_pending_keys`,
      );
      this.lastLog = t;
      this.refused = 0;
    }
    return false;
  }
}

/**
 * `auth_rate_limit`: at most that many `_auth` requests per connection in each one-second window.
 * ZeroMQ tells the master which connection (routing id) a request came on, not its address, so
 * this is per connection; the pending cap bounds what many connections can store.
 */
export class SignInRateLimit {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  allow(peer: Buffer | undefined): boolean {
    const w = Math.floor(this.now() / 1000);
    if (w !== this.window) {
      // A fresh map each second: memory is bounded by the connections seen within one second.
      this.window = w;
      this.counts = new Map();
    }
    const key = peer === undefined ? '' : peer.toString('latin1');
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n <= this.perSecond;
  }
}
