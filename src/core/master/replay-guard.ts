/**
 * Replayed aes requests: Salt's loads carry `ts` (seconds) and a random `nonce`. A request whose
 * `ts` is further than `request_server_ttl` seconds from now, or whose (id, nonce) was already seen
 * while its `ts` was still acceptable, is refused: a captured `_return` or `_minion_event` cannot be
 * sent again.
 */
import { textHash52 } from '../text-hash';

/** Nonces remembered at most; beyond it the oldest go (a flood, not a fleet's pace). */
const MAX_REMEMBERED = 500_000;

/** Buckets per ttl: a nonce is kept at most ttl / BUCKETS_PER_TTL past the moment it could matter. */
const BUCKETS_PER_TTL = 4;

/** Slots of the first generation: 32 KiB, what a small master ever needs. */
const MIN_SLOTS = 4096;

/**
 * (id, nonce) as a 52-bit number, exact in a double. Two different requests share a key with odds
 * of 1 in 2^52 for each nonce remembered (a nonce is 128 random bits, Salt's uuid4().hex); the later
 * one is then refused as a replay, and its minion signs in again and sends it anew. 0 marks an
 * empty slot of a table, so a key of 0 is taken as 1.
 */
function replayKey(id: string, nonce: string): number {
  return textHash52(id, nonce) || 1;
}

/**
 * The nonces put in while this generation was the newest: an open-addressing table of keys, at
 * most half full, and how many of its keys go stale in each bucket. A key whose bucket went stale
 * stays in the table (only its count goes): a fresh request never carries it, since its ts would
 * be stale too. The generation goes as a whole when none of its keys is live any more.
 */
class Generation {
  readonly keys: Float64Array;
  readonly capacity: number;
  count = 0;
  /** Keys per bucket (relative), live ones only. */
  readonly perBucket = new Map<number, number>();
  live = 0;

  constructor(keys: Float64Array, capacity: number) {
    this.keys = keys;
    this.capacity = capacity;
  }

  has(key: number): boolean {
    const { keys } = this;
    const mask = keys.length - 1;
    for (let i = (key >>> 0) & mask; keys[i] !== 0; i = (i + 1) & mask) {
      if (keys[i] === key) return true;
    }
    return false;
  }

  add(key: number, bucket: number): void {
    const { keys } = this;
    const mask = keys.length - 1;
    let i = (key >>> 0) & mask;
    while (keys[i] !== 0) i = (i + 1) & mask;
    keys[i] = key;
    this.count++;
    this.live++;
    this.perBucket.set(bucket, (this.perBucket.get(bucket) ?? 0) + 1);
  }

  /** Forgets the counts of buckets up to `last`: their keys are stale. */
  forgetUpTo(last: number): void {
    for (const [bucket, n] of this.perBucket) {
      if (bucket > last) continue;
      this.live -= n;
      this.perBucket.delete(bucket);
    }
  }
}

/**
 * The nonces are kept in generations, newest last: each a table of its own, filled until half
 * full, then a new one is started. A generation goes once all its keys are stale, or when the cap
 * needs its room (the oldest first). A new generation is twice the size of the one before while
 * older ones still hold live keys (requests come faster than they go stale), up to half the cap:
 * so the memory follows the request rate, from 32 KiB for a small master to 8 bytes a slot and
 * twice as many slots as nonces at the cap (8 MiB at 500,000), where one table of 16-byte slots
 * made at its full size held 16 MiB from the first request (docs/scaling.md). At least the newest
 * full generation is always remembered: half the cap once the generations have grown to it.
 */
export class ReplayGuard {
  private readonly bucketMs: number;
  private readonly base: number;
  private readonly maxGeneration: number;
  private generations: Generation[] = [];
  /** Buckets at or under this are forgotten: every ts in them is stale. */
  private staleUpTo = -Infinity;

  constructor(
    /** Seconds; 0 turns the check off. */
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {
    this.bucketMs = Math.max(1, (ttlSeconds * 1000) / BUCKETS_PER_TTL);
    this.base = Math.floor(now() / this.bucketMs);
    this.maxGeneration = Math.max(1, Math.floor(maxRemembered / 2));
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
    const key = replayKey(id, nonce);
    for (const generation of this.generations) {
      if (generation.has(key)) return 'its nonce was already used (a replayed request)';
    }
    // Kept until its ts is stale.
    const bucket = Math.floor((ts * 1000 + ttlMs) / this.bucketMs) - this.base;
    this.newest().add(key, bucket);
    return undefined;
  }

  /** How many nonces are remembered now. */
  get size(): number {
    let live = 0;
    for (const generation of this.generations) live += generation.live;
    return live;
  }

  /** Slots held by all generations (8 bytes each): for tests and the bench. */
  get slots(): number {
    let slots = 0;
    for (const generation of this.generations) slots += generation.keys.length;
    return slots;
  }

  /** The generation to put a key in: the newest, or a new one when it is full. */
  private newest(): Generation {
    const last = this.generations[this.generations.length - 1];
    if (last !== undefined && last.count < last.capacity) return last;
    // Older generations with live keys left mean keys outlive a generation: the next is larger.
    const capacity =
      last === undefined
        ? Math.min(MIN_SLOTS / 2, this.maxGeneration)
        : this.generations.some((g) => g !== last && g.live > 0)
          ? Math.min(2 * last.capacity, this.maxGeneration)
          : last.capacity;
    // The cap: room for the new generation is made by dropping the oldest (all older ones are full).
    this.generations = this.generations.filter((g) => g.live > 0);
    let held = capacity;
    for (const generation of this.generations) held += generation.count;
    let dropped: Float64Array | undefined;
    while (held > this.maxRemembered && this.generations.length > 0) {
      const oldest = this.generations.shift()!;
      held -= oldest.count;
      dropped = oldest.keys;
    }
    const slots = Math.max(MIN_SLOTS, 2 ** Math.ceil(Math.log2(2 * capacity)));
    // At the cap a dropped table is the size of the next: cleared and used again, the master's
    // memory stays as it is instead of freeing 4 MiB and taking it again every 250,000 requests.
    const generation = new Generation(dropped?.length === slots ? dropped.fill(0) : new Float64Array(slots), capacity);
    this.generations.push(generation);
    return generation;
  }

  /** Forgets the buckets up to `last` (relative), and the generations left with no live key. */
  private forgetStale(last: number): void {
    if (last <= this.staleUpTo) return;
    this.staleUpTo = last;
    for (const generation of this.generations) generation.forgetUpTo(last);
    // The newest too: after a quiet ttl the next request starts small again.
    this.generations = this.generations.filter((g) => g.live > 0);
  }
}
