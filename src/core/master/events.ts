import { EventPublisher } from '../transport/zeromq';
import { encode } from '../protocol/msgpack';
import { join } from 'node:path';

/** The master's local event bus address, a socket file in sock_dir. */
export function eventBusAddress(sockDir: string): string {
  return `ipc://${join(sockDir, 'master_event_pub.ipc')}`;
}

/** Fires Salt-style events (tag + msgpack data) on the master's local bus. */
export class MasterEvents {
  private readonly bus = new EventPublisher();

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
