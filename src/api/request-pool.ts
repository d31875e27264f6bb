/**
 * rest_cherrypy's `thread_pool` as brine has it: at most `size` requests are handled at once (an
 * open /events stream holds its place, as it holds a CherryPy thread); the others wait in order
 * of arrival. Node serves them on one thread, so the limit bounds work in flight, not threads.
 *
 *   const pool = new RequestPool(100);
 *   const release = await pool.acquire();
 *   try { ... } finally { release(); }
 */
export class RequestPool {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly size: number) {}

  /** Requests being handled now. */
  get running(): number {
    return this.active;
  }

  /** Requests waiting for a place. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Waits for a place; the returned function gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.active < this.size) this.active++;
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The place passes straight to the next waiter, so `active` stays at the limit.
      if (next) next();
      else this.active--;
    };
  }
}
