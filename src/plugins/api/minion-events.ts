/**
 * The minion's own event bus (Salt's minion event bus, what `event.fire` writes to): events that
 * stay on the minion unless a tag asks for more. As Salt's minion, the bus acts on the tag
 * `fire_master`: its data `{tag, data}` is forwarded to the master's event bus.
 */

/** One event on the minion's bus. */
export interface MinionEvent {
  tag: string;
  data: unknown;
}

/**
 * @example
 * await this.events.fire('myapp/started', { pid: process.pid });              // true
 * const stop = this.events.subscribe((e) => e.tag === 'myapp/started' && ...);
 */
export interface IMinionEvents {
  /** Fires `tag` with `data` on the minion's bus: every listener has it when this resolves (true). */
  fire(tag: string, data: unknown): Promise<boolean>;
  /** Calls `listener` for each event fired from now on; returns the function that stops it. */
  subscribe(listener: (event: MinionEvent) => void): () => void;
}
/** Service id of {@link IMinionEvents}. @example constructor(@inject(IMinionEvents) private readonly events: IMinionEvents) {} */
export const IMinionEvents: unique symbol = Symbol.for('brine.IMinionEvents');
