import type { IEventPublisher, Transport } from '../transport/types';
import { encode } from '../protocol/msgpack';
import { join } from 'node:path';
import type { KeyListing } from './key-store';

/** The master's local event bus address, a socket file in sock_dir. */
export function eventBusAddress(sockDir: string): string {
  return `ipc://${join(sockDir, 'master_event_pub.ipc')}`;
}

/** Fires Salt-style events (tag + msgpack data) on the master's local bus. */
export class MasterEvents {
  private readonly bus: IEventPublisher;

  constructor(transport: Transport) {
    this.bus = transport.eventPublisher();
  }

  async open(sockDir: string): Promise<void> {
    await this.bus.bind(eventBusAddress(sockDir));
  }

  fire(tag: string, data: Record<string, unknown>): void {
    // The bus has no high-water mark: a slow listener costs memory, never a lost return.
    void this.bus.publish(tag, encode({ ...data, _stamp: new Date().toISOString().replace('Z', '') })).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.bus.close();
  }
}

/** A `salt/key` event's data, as salt-key fires it in Salt ({id, act, result}). */
export interface KeyEvent {
  id: string;
  act: 'accept' | 'reject' | 'delete';
  result: true;
}

/**
 * The key changes between two listings of the pki directories: newly accepted, newly rejected,
 * and gone from every state (deleted). New pending keys are the sign-in's own `salt/auth` event.
 */
export function keyEvents(before: KeyListing, after: KeyListing): KeyEvent[] {
  const out: KeyEvent[] = [];
  const was = (state: keyof KeyListing) => new Set(before[state]);
  const wasAccepted = was('accepted');
  const wasRejected = was('rejected');
  for (const id of after.accepted) if (!wasAccepted.has(id)) out.push({ id, act: 'accept', result: true });
  for (const id of after.rejected) if (!wasRejected.has(id)) out.push({ id, act: 'reject', result: true });
  const now = new Set([...after.accepted, ...after.pending, ...after.rejected, ...after.denied]);
  const gone = new Set<string>();
  for (const id of [...before.accepted, ...before.pending, ...before.rejected, ...before.denied]) {
    if (!now.has(id) && !gone.has(id)) {
      gone.add(id);
      out.push({ id, act: 'delete', result: true });
    }
  }
  return out;
}
