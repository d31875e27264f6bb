/**
 * Sign-ins taken a few at a time, in arrival order.
 *
 * In a sign-in storm thousands of `_auth` requests arrive at once. Handled as they were read, each
 * one's key-store and session work ran back to back on the main thread and each RSA job joined
 * one long queue, so a `publish` from the CLI, or a return, read behind them waited for all of
 * them: at 10,000 minions longer than the CLI's 10 s. Here at most `concurrency` sign-ins are in
 * progress (enough to keep the thread pool's RSA busy); the others wait their turn while every other
 * request is served as it comes.
 *
 * A minion that sends `_auth` again while its earlier one still waits here has given the earlier
 * one up (its request socket timed out and was replaced: a reply could no longer reach it), so
 * the earlier one is dropped unanswered when its turn comes instead of costing RSA work. So is one
 * whose connection closed while it waited, where the transport can tell (the master's Node ports):
 * the minion gave it up at its auth_timeout, and its answer could reach nobody. (Measured on a
 * 10,000-minion cold storm the saving was within the noise: the storm is bound by CPU overall,
 * not by the RSA; see docs/scaling.md.)
 */
export class SignInQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** The newest ticket per minion id. */
  private readonly latest = new Map<string, number>();
  private tickets = 0;
  private abandonedCount = 0;

  constructor(private readonly concurrency: number) {}

  /** Sign-ins waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Sign-ins dropped unanswered so far: asked again, or their connection gone. */
  get abandoned(): number {
    return this.abandonedCount;
  }

  /**
   * Runs `work` for minion `id` when its turn comes; resolves with null, without running it, if
   * the same id asked again meanwhile or `connected` says its connection has closed.
   */
  async run<T>(id: string, work: () => Promise<T>, connected?: () => boolean): Promise<T | null> {
    const ticket = ++this.tickets;
    this.latest.set(id, ticket);
    if (this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over
    try {
      if (this.latest.get(id) !== ticket || connected?.() === false) {
        this.abandonedCount++;
        return null;
      }
      return await work();
    } finally {
      if (this.latest.get(id) === ticket) this.latest.delete(id);
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
