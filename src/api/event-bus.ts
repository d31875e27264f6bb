/**
 * salt-api's view of the master's event bus: listen to every event (for GET /events) and fire
 * events through the master's event intake (webhooks, runner and wheel jobs).
 */
import { eventBusAddress, eventIntakeAddress } from '../core/master/events';
import { decode, encode } from '../core/protocol/msgpack';
import type { IEventPusher } from '../core/transport/types';
import { clientTransport } from '../core/transport/client-transport';
import type { EventBus } from './server';

function dataOf(body: Buffer): Record<string, unknown> {
  try {
    const v = decode(body);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export class MasterEventBus implements EventBus {
  private pusher?: IEventPusher;

  constructor(private readonly sockDir: string) {}

  async open(): Promise<void> {
    this.pusher = clientTransport.eventPusher(eventIntakeAddress(this.sockDir));
  }

  listen() {
    const sub = clientTransport.eventSubscriber(eventBusAddress(this.sockDir), ['']);
    return {
      ready: sub.sync(5000),
      async next(timeoutMs: number) {
        const ev = await sub.next(timeoutMs);
        return ev && { tag: ev.tag, data: dataOf(ev.body) };
      },
      close: () => sub.close(),
    };
  }

  async fire(tag: string, data: Record<string, unknown>): Promise<void> {
    if (!this.pusher) throw new Error('the event bus is not open');
    await this.pusher.push(tag, encode(data));
  }

  async close(): Promise<void> {
    this.pusher?.close();
    this.pusher = undefined;
  }
}
