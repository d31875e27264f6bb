/**
 * Replayed aes requests: Salt's loads carry `ts` (seconds) and a random `nonce`. A request whose
 * `ts` is further than `request_server_ttl` seconds from now, or whose (id, nonce) was already seen
 * within that window, is refused: a captured `_return` or `_minion_event` cannot be sent again.
 */

/** Nonces remembered at most; beyond it the oldest go first (their ts soon expires anyway). */
const MAX_REMEMBERED = 500_000;

export class ReplayGuard {
  /** `${id}\0${nonce}` -> ts (ms): Map order is arrival order, so expiry pops from the front. */
  private readonly seen = new Map<string, number>();

  constructor(
    /** Seconds; 0 turns the check off. */
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why the request is a replay or stale, or undefined when it is fresh (and now remembered). */
  check(id: string, nonce: string, ts: number): string | undefined {
    if (this.ttlSeconds <= 0) return undefined;
    const now = this.now();
    const ttlMs = this.ttlSeconds * 1000;
    if (!Number.isFinite(ts) || Math.abs(now - ts * 1000) > ttlMs) {
      return `its ts (${ts}) is more than request_server_ttl (${this.ttlSeconds} s) away from the master's clock`;
    }
    this.expire(now - ttlMs);
    const key = `${id}\0${nonce}`;
    if (this.seen.has(key)) return 'its nonce was already used (a replayed request)';
    this.seen.set(key, now);
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    return undefined;
  }

  private expire(before: number): void {
    for (const [key, at] of this.seen) {
      if (at >= before) break;
      this.seen.delete(key);
    }
  }
}
