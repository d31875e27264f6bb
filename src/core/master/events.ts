import type { IEventPublisher, IEventPuller, Transport } from '../transport/types';
import { decode, encode } from '../protocol/msgpack';
import { join } from 'node:path';
import { utcStamp } from '../pycompat/local-time';

/** The master's local event bus address, a socket file in sock_dir. */
export function eventBusAddress(sockDir: string): string {
  return `ipc://${join(sockDir, 'master_event_pub.ipc')}`;
}

/** Where local processes push events for the master to publish (Salt's master_event_pull.ipc). */
export function eventIntakeAddress(sockDir: string): string {
  return `ipc://${join(sockDir, 'master_event_pull.ipc')}`;
}

/** Fires Salt-style events (tag + msgpack data) on the master's local bus. */
export class MasterEvents {
  private readonly bus: IEventPublisher;
  private readonly intake: IEventPuller;
  private readonly listeners = new Set<(tag: string, data: Record<string, unknown>) => void>();

  constructor(transport: Transport) {
    this.bus = transport.eventPublisher();
    this.intake = transport.eventPuller();
  }

  /** Opens the bus, and the intake through which local processes (salt-api) fire events. */
  async open(sockDir: string): Promise<void> {
    await this.bus.bind(eventBusAddress(sockDir));
    await this.intake.bind(eventIntakeAddress(sockDir), (tag, body) => this.relay(tag, body));
  }

  /** An event pushed by a local process: republished as it came if its body is a msgpack map. */
  private relay(tag: string, body: Buffer): void {
    let data: unknown;
    try {
      data = decode(body);
    } catch {
      return;
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
    this.fire(tag, data as Record<string, unknown>);
  }

  fire(tag: string, data: Record<string, unknown>): void {
    // An event nobody listens to is not built: on a master with no CLI or salt-api waiting (jobs
    // run --async, schedules), the encoding and send of every return's event cost for nothing.
    const onBus = this.bus.wants(tag);
    if (!onBus && this.listeners.size === 0) return;
    const body = { ...data, _stamp: utcStamp() };
    // The bus has no high-water mark: a slow listener costs memory, never a lost return (only
    // one that stopped reading, with 512 MiB unread, is cut off).
    if (onBus) void this.bus.publish(tag, encode(body)).catch(() => undefined);
    for (const listener of this.listeners) listener(tag, body);
  }

  /**
   * Calls `listener` with every event fired on the bus, in this process (the master's
   * event_return). A listener must not throw; returns the unsubscribe function.
   */
  subscribe(listener: (tag: string, data: Record<string, unknown>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.intake.close();
    await this.bus.close();
  }
}

/** A `salt/key` event's data, as salt-key fires it in Salt ({id, act, result}). */
export interface KeyEvent {
  id: string;
  act: 'accept' | 'reject' | 'delete';
  result: true;
}
