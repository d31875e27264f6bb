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

/** The table is rebuilt without its forgotten keys once this share of its slots has ever been used. */
const REBUILD_AT = 0.75;

/**
 * (id, nonce) as a 52-bit number, exact in a double. Two different requests share a key with odds
 * of 1 in 2^52 for each nonce remembered (a nonce is 128 random bits, Salt's uuid4().hex); the later
 * one is then refused as a replay, and its minion signs in again and sends it anew. 0 marks an
 * empty slot of the table, so a key of 0 is taken as 1.
 */
function replayKey(id: string, nonce: string): number {
  return textHash52(id, nonce) || 1;
}

/**
 * The nonces are kept in one open-addressing table of typed arrays, made once at its full size:
 * per slot the key (a double), the bucket its request's `ts` goes stale in, and when it was put
 * there (ints), 16 bytes a slot and twice as many slots as nonces remembered (16 MiB at the cap of
 * 500,000). A key whose bucket has gone stale, or that the cap let go of, is forgotten where it
 * lies: lookups step over it, an insert takes its slot, and the table is rebuilt without such
 * keys once three quarters of its slots have been used. So the guard's memory is the same from
 * its first request on, where a Set of numbers and arrays of keys per bucket grew to about 25 MiB
 * at the cap, reached only after minutes at 10,000 minions (a 600 s soak counted that growth as
 * the master's: docs/scaling.md).
 */
export class ReplayGuard {
  private readonly bucketMs: number;
  private readonly slots: number;
  private keys: Float64Array;
  /** Each slot's bucket, relative to `base` (buckets are `(ts + ttl) / bucketMs`, too large for an int). */
  private buckets: Int32Array;
  /** When each slot's key was put there: the count of keys remembered before it, since the last rebuild. */
  private stamps: Int32Array;
  private readonly base: number;
  /** Keys remembered per bucket (relative). */
  private perBucket = new Map<number, number>();
  /** Buckets at or under this are forgotten: every ts in them is stale. */
  private staleUpTo = -Infinity;
  /** Keys stamped at or under this are forgotten: the cap let them go. */
  private droppedUpTo = 0;
  private stamp = 0;
  private remembered = 0;
  /** Slots that ever held a key since the last rebuild, forgotten or not: a lookup stops only at one never used. */
  private used = 0;

  constructor(
    /** Seconds; 0 turns the check off. */
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {
    this.bucketMs = Math.max(1, (ttlSeconds * 1000) / BUCKETS_PER_TTL);
    this.base = Math.floor(now() / this.bucketMs);
    this.slots = ttlSeconds > 0 ? 2 ** Math.ceil(Math.log2(Math.max(16, 2 * maxRemembered))) : 0;
    this.keys = new Float64Array(this.slots);
    this.buckets = new Int32Array(this.slots);
    this.stamps = new Int32Array(this.slots);
  }

  /** Why the request is a replay or stale, or undefined when it is fresh (and now remembered). */
  check(id: string, nonce: string, ts: number): string | undefined {
    if (this.ttlSeconds <= 0) return undefined;
    const now = this.now();
    const ttlMs = this.ttlSeconds * 1000;
    if (!Number.isFinite(ts) || Math.abs(now - ts * 1000) > ttlMs) {
      return `its ts (${ts}) is more than request_server_ttl (${this.ttlSeconds} s) away from the master's clock`;
    }
    // A bucket is stale once every ts in it is: from then on the ts check alone refuses a replay.
    this.forgetStale(Math.floor(now / this.bucketMs) - 1 - this.base);
    // Kept until its ts is stale.
    const bucket = Math.floor((ts * 1000 + ttlMs) / this.bucketMs) - this.base;
    if (!this.remember(replayKey(id, nonce), bucket, ++this.stamp)) return 'its nonce was already used (a replayed request)';
    this.perBucket.set(bucket, (this.perBucket.get(bucket) ?? 0) + 1);
    this.remembered++;
    // Over the cap (a flood, not a fleet's pace) the oldest half goes; rebuilt when a quarter of
    // the slots hold forgotten keys, or before the stamps could overflow.
    if (this.remembered > this.maxRemembered) this.rebuild(this.stamp - Math.ceil(this.maxRemembered / 2));
    else if (this.used > REBUILD_AT * this.slots || this.stamp >= 2 ** 30) this.rebuild(this.droppedUpTo);
    return undefined;
  }

  /** How many nonces are remembered now. */
  get size(): number {
    return this.remembered;
  }

  private forgotten(i: number): boolean {
    return this.buckets[i] <= this.staleUpTo || this.stamps[i] <= this.droppedUpTo;
  }

  /** Puts the key in the table, or returns false when it is there and not forgotten. */
  private remember(key: number, bucket: number, stamp: number): boolean {
    const { keys } = this;
    const mask = this.slots - 1;
    let free = -1;
    let i = (key >>> 0) & mask;
    for (; keys[i] !== 0; i = (i + 1) & mask) {
      const forgotten = this.forgotten(i);
      if (!forgotten && keys[i] === key) return false;
      if (forgotten && free < 0) free = i;
    }
    // The whole run of used slots was read: a forgotten key's slot in it can take this one.
    if (free < 0) {
      free = i;
      this.used++;
    }
    keys[free] = key;
    this.buckets[free] = bucket;
    this.stamps[free] = stamp;
    return true;
  }

  /** Forgets the buckets up to `last` (relative). */
  private forgetStale(last: number): void {
    if (last <= this.staleUpTo) return;
    this.staleUpTo = last;
    for (const [bucket, count] of this.perBucket) {
      if (bucket > last) continue;
      this.remembered -= count;
      this.perBucket.delete(bucket);
    }
  }

  /**
   * The table again with only the keys stamped after `dropUpTo` and not stale, their stamps
   * counted from there. A few milliseconds for a full table: once every few hundred thousand
   * requests.
   */
  private rebuild(dropUpTo: number): void {
    const { keys, buckets, stamps } = this;
    const live = (i: number) => keys[i] !== 0 && buckets[i] > this.staleUpTo && stamps[i] > dropUpTo;
    this.keys = new Float64Array(this.slots);
    this.buckets = new Int32Array(this.slots);
    this.stamps = new Int32Array(this.slots);
    this.perBucket = new Map();
    this.used = 0;
    this.remembered = 0;
    this.droppedUpTo = 0;
    for (let i = 0; i < keys.length; i++) {
      if (!live(i)) continue;
      this.remember(keys[i], buckets[i], stamps[i] - dropUpTo);
      this.perBucket.set(buckets[i], (this.perBucket.get(buckets[i]) ?? 0) + 1);
      this.remembered++;
    }
    this.stamp -= dropUpTo;
  }
}
