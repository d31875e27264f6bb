/**
 * Replayed aes requests: Salt's loads carry `ts` (seconds) and a random `nonce`. A request whose
 * `ts` is further than `request_server_ttl` seconds from now, or whose (id, nonce) was already seen
 * while its `ts` was still acceptable, is refused: a captured `_return` or `_minion_event` cannot be
 * sent again.
 */
import { textHash52 } from '../text-hash';

/** Nonces remembered at most; beyond it the oldest bucket goes (a flood, not a fleet's pace). */
const MAX_REMEMBERED = 500_000;

/** Buckets per ttl: a nonce is kept at most ttl / BUCKETS_PER_TTL past the moment it could matter. */
const BUCKETS_PER_TTL = 4;

/**
 * (id, nonce) as a 52-bit number: a Set of numbers and arrays of doubles hold a remembered nonce in
 * 52 bytes, where `${id}\0${nonce}` strings took 132 (measured in replay-guard.test.ts; at the cap
 * of 500,000, which a 10,000-minion master reaches with a job every few seconds: 25 MiB, not 63).
 * Two different requests share a key with odds of 1 in 2^52 for each nonce remembered (a nonce is
 * 128 random bits, Salt's uuid4().hex); the later one is then refused as a replay, and its minion
 * signs in again and sends it anew.
 */
function replayKey(id: string, nonce: string): number {
  return textHash52(id, nonce);
}

export class ReplayGuard {
  /** Every remembered (id, nonce), as replayKey makes it. */
  private readonly seen = new Set<number>();
  /**
   * The same keys grouped by when their request's `ts` goes stale (`ts` + ttl, in buckets of
   * ttl / 4): a bucket is forgotten key by key once it has gone stale. Deleting the oldest entry
   * of one Map found through `keys().next()` instead costs V8 a scan over every entry deleted
   * before it, which grew without end on a busy master (500 µs per request after 800,000).
   */
  private readonly buckets = new Map<number, number[]>();
  private readonly bucketMs: number;

  constructor(
    /** Seconds; 0 turns the check off. */
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {
    this.bucketMs = Math.max(1, (ttlSeconds * 1000) / BUCKETS_PER_TTL);
  }

  /** Why the request is a replay or stale, or undefined when it is fresh (and now remembered). */
  check(id: string, nonce: string, ts: number): string | undefined {
    if (this.ttlSeconds <= 0) return undefined;
    const now = this.now();
    const ttlMs = this.ttlSeconds * 1000;
    if (!Number.isFinite(ts) || Math.abs(now - ts * 1000) > ttlMs) {
      return `its ts (${ts}) is more than request_server_ttl (${this.ttlSeconds} s) away from the master's clock`;
    }
    this.expire(now);
    const key = replayKey(id, nonce);
    if (this.seen.has(key)) return 'its nonce was already used (a replayed request)';
    this.seen.add(key);
    // Kept until its ts is stale: from then on the ts check alone refuses a replay.
    const slot = Math.floor((ts * 1000 + ttlMs) / this.bucketMs);
    const bucket = this.buckets.get(slot);
    if (bucket === undefined) this.buckets.set(slot, [key]);
    else bucket.push(key);
    if (this.seen.size > this.maxRemembered) this.dropOldest();
    return undefined;
  }

  /** How many nonces are remembered now. */
  get size(): number {
    return this.seen.size;
  }

  /** Forgets the buckets whose every request's ts is stale by now. */
  private expire(now: number): void {
    for (const slot of this.buckets.keys()) {
      if ((slot + 1) * this.bucketMs <= now) this.forget(slot);
    }
  }

  private dropOldest(): void {
    let oldest = Infinity;
    for (const slot of this.buckets.keys()) oldest = Math.min(oldest, slot);
    this.forget(oldest);
  }

  private forget(slot: number): void {
    for (const key of this.buckets.get(slot) ?? []) this.seen.delete(key);
    this.buckets.delete(slot);
  }
}
