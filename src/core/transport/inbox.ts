/** A queue that an async reader waits on: the in-memory transport's and the Node subscriber's received messages. */
export class Inbox<T> {
  private readonly items: T[] = [];
  private waiter?: (item: T | null) => void;
  private ended = false;

  /** Items waiting to be taken. */
  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(item);
    } else {
      this.items.push(item);
    }
  }

  /** The next item; null at the end or after timeoutMs. */
  take(timeoutMs?: number): Promise<T | null> {
    if (this.items.length > 0) return Promise.resolve(this.items.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.waiter = undefined;
              resolve(null);
            }, timeoutMs);
      this.waiter = (item) => {
        clearTimeout(timer);
        resolve(item);
      };
    });
  }

  end(): void {
    this.ended = true;
    this.waiter?.(null);
    this.waiter = undefined;
  }
}
