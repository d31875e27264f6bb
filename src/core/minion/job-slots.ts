/**
 * Salt's `process_count_max`: at most that many jobs run at once on a minion (Salt counts its job
 * processes); a job beyond waits for one to finish, in arrival order, where Salt's minion polls
 * every 10 s. 0 or less: no limit. close() lets the waiting ones go without running (the minion
 * is stopping).
 */
export class JobSlots {
  private running = 0;
  private closed = false;
  private readonly waiting: Array<(run: boolean) => void> = [];

  constructor(private readonly max: number) {}

  /** Resolves true once the job may run (`onWait` told first when it must wait), false when closed meanwhile. */
  async take(onWait: () => void): Promise<boolean> {
    if (this.closed) return false;
    if (this.max <= 0 || this.running < this.max) {
      this.running++;
      return true;
    }
    onWait();
    return new Promise<boolean>((resolve) => this.waiting.push(resolve));
  }

  /** A job has finished: its slot goes to the next waiting one. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next(true);
    else this.running--;
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter(false);
  }
}
