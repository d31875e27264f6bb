/**
 * The master's `event_return`: every event on the master's bus, filtered by
 * `event_return_whitelist` / `event_return_blacklist` (fnmatch patterns on the tag), queued up to
 * `event_return_queue` events (0: each at once), and handed as Salt's list of `{tag, data}` to
 * the `event_return(events)` function of each `@Returner` named (`event_return: pgjsonb`, a list,
 * or `a,b`). Returners are the built-in ones plus the master's `module_dirs` files and
 * `plugin_dirs` packages. Batches go out one at a time, in order; a returner that fails is logged
 * and the master goes on.
 *
 *   const returns = await EventReturns.start({ config, logger, builtins: BUILTIN_RETURNERS, jobCache });
 *   master.onEvent((tag, data) => returns?.push(tag, data));
 *   await returns?.stop(); // flushes what is queued
 */
import { fnmatch } from '../core/pycompat';
import type { Executor } from './executor';
import { loadMasterReturners, type MasterReturnersOptions } from './master-returners';
import type { ReturnerStores } from './services/job-stores';
import { returnerNames } from './runtime';

export type EventReturnsOptions = MasterReturnersOptions;

function patterns(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : [];
}

export class EventReturns {
  private queue: Array<{ tag: string; data: unknown }> = [];
  private sending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly names: string[],
    private readonly executor: Executor,
    private readonly stores: ReturnerStores,
    private readonly o: EventReturnsOptions,
  ) {}

  /** Loads the returners `event_return` names; undefined when it names none. */
  static async start(o: EventReturnsOptions): Promise<EventReturns | undefined> {
    const names = returnerNames(undefined, o.config.event_return);
    if (names.length === 0) return undefined;
    const { plugins, executor, stores } = await loadMasterReturners(o);
    for (const name of names) {
      if (!plugins.registry.find(`${name}.event_return`, 'returner')) {
        o.logger.error(`Could not store events - returner '${name}' raised exception: '${name}.event_return' is not available.`);
      }
    }
    return new EventReturns(names, executor, stores, o);
  }

  /** Salt's EventReturn._filter: the whitelist (when given) must match, the blacklist must not. */
  private wanted(tag: string): boolean {
    const white = patterns(this.o.config.event_return_whitelist);
    const black = patterns(this.o.config.event_return_blacklist);
    if (white.length > 0 && !white.some((p) => fnmatch(tag, p))) return false;
    return !black.some((p) => fnmatch(tag, p));
  }

  /** One event from the master's bus. */
  push(tag: string, data: unknown): void {
    if (!this.wanted(tag)) return;
    this.queue.push({ tag, data });
    const size = Number(this.o.config.event_return_queue ?? 0);
    if (this.queue.length >= (Number.isFinite(size) ? size : 0)) this.flush();
  }

  /** Sends what is queued, after the batches before it. */
  private flush(): Promise<void> {
    const events = this.queue;
    if (events.length === 0) return this.sending;
    this.queue = [];
    this.sending = this.sending.then(() => this.send(events));
    return this.sending;
  }

  private async send(events: Array<{ tag: string; data: unknown }>): Promise<void> {
    for (const name of this.names) {
      const fun = `${name}.event_return`;
      if (!this.executor.current.registry.find(fun, 'returner')) continue;
      try {
        await this.executor.invoke('returner', fun, { arg: [events] }, { fun, jid: 'req' });
      } catch (err) {
        this.o.logger.error(`Could not store events - returner '${name}' raised exception: ${(err as Error)?.message ?? String(err)}`);
      }
    }
  }

  /** Flushes the queue, waits for the batches in flight, and closes what the returners opened. */
  async stop(): Promise<void> {
    await this.flush();
    await this.stores.close();
  }
}
