/**
 * The minions a remembered job expects returns from, kept small: the master remembers up to a
 * million of them across its recent jobs (jobs.ts), and as a `Set` of ids each cost about 32
 * bytes (320 KiB a job at 10,000 minions, 30 MiB at the bound). Here a job holds a sorted array
 * of the ids (8 bytes each), shared with the job before it when both expect the same minions (a
 * fleet's repeated `'*'`: one array for all of them), and one bit per id for the minions taken
 * off it.
 */
export class ExpectedMinions {
  /** Bit i set: ids[i] was taken off (its return came, with `job_cache: false`). */
  private taken?: Uint8Array;
  private remaining: number;

  private constructor(private readonly ids: readonly string[]) {
    this.remaining = ids.length;
  }

  /**
   * The set of `minions` (duplicates counted once). `previous` is the set of the job before:
   * when it holds exactly these minions its array is shared instead of making another.
   */
  static of(minions: readonly string[], previous?: ExpectedMinions): ExpectedMinions {
    const sorted = [...minions].sort();
    // Duplicates lie side by side once sorted: kept once.
    let kept = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[kept++] = sorted[i];
    sorted.length = kept;
    if (previous !== undefined && sameIds(previous.ids, sorted)) return new ExpectedMinions(previous.ids);
    return new ExpectedMinions(sorted);
  }

  /** How many are still expected. */
  get size(): number {
    return this.remaining;
  }

  has(id: string): boolean {
    const i = indexOf(this.ids, id);
    return i >= 0 && !this.isTaken(i);
  }

  /** Takes `id` off; false when it was not expected or already taken. */
  delete(id: string): boolean {
    const i = indexOf(this.ids, id);
    if (i < 0 || this.isTaken(i)) return false;
    this.taken ??= new Uint8Array(Math.ceil(this.ids.length / 8));
    this.taken[i >> 3] |= 1 << (i & 7);
    this.remaining--;
    return true;
  }

  private isTaken(i: number): boolean {
    return this.taken !== undefined && (this.taken[i >> 3] & (1 << (i & 7))) !== 0;
  }
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Binary search in `ids`, sorted by `Array.prototype.sort`'s order (UTF-16 code units). */
function indexOf(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = ids[mid];
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
