import type { Logger } from './logging';

/**
 * A warning that a peer can cause at will (garbage on a port, a flood of sign-ins), written at
 * most once per interval with the count of events since the last line rather than once each:
 * the log stays small whatever is sent, and the first event is always told at once.
 *
 *   const dropped = new RepeatedWarning(log);
 *   dropped.note((n) => `Dropped ${n} unreadable publication(s) since the last report`);
 */
export class RepeatedWarning {
  private count = 0;
  private last = -Infinity;

  /** `log`: a Logger, or anything with its `warning` (a port hands its lines on as errors). */
  constructor(
    private readonly log: Pick<Logger, 'warning'>,
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one event; writes `message(count)` when the interval has passed since the last line. */
  note(message: (count: number) => string): void {
    this.count++;
    const t = this.now();
    if (t - this.last < this.intervalMs) return;
    this.log.warning(message(this.count));
    this.last = t;
    this.count = 0;
  }
}
