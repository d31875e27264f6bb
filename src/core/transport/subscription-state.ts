/**
 * What every ISubscribeClient tells of its connection to the publisher (types.ts): whether it is
 * up, a wait until it is, and a call each time it comes back after a drop, with when it dropped.
 * The subscribers (libzmq's, Node's, the in-memory one) say when their connection goes up or
 * down; this keeps the rest.
 */
export class SubscriptionState {
  private connected = false;
  private everConnected = false;
  private downSince = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly reconnectListeners: Array<(downSince: number) => void> = [];

  get isConnected(): boolean {
    return this.connected;
  }

  whenConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  onReconnect(listener: (downSince: number) => void): void {
    this.reconnectListeners.push(listener);
  }

  /** The connection is up (its handshake done): waiters go on, and listeners hear of a comeback. */
  up(): void {
    if (this.connected) return;
    const again = this.everConnected;
    this.connected = true;
    this.everConnected = true;
    this.waiters.splice(0).forEach((resolve) => resolve());
    if (again) this.reconnectListeners.forEach((listener) => listener(this.downSince));
  }

  /** The connection dropped, or the subscriber closed it. */
  down(): void {
    if (this.connected) this.downSince = Date.now();
    this.connected = false;
  }
}
