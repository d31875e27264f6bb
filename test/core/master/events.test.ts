/**
 * MasterEvents on the in-memory transport: events reach the bus's subscribers and the in-process
 * listeners, and an event that nobody listens to is not built nor sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decode } from '../../../src/core/protocol/msgpack';
import { eventBusAddress, MasterEvents } from '../../../src/core/master/events';
import { MemoryTransport } from '../../../src/core/transport/memory';
import type { IEventPublisher } from '../../../src/core/transport/types';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

let buses = 0;

/** A master event bus on a fresh in-memory transport, counting what it sends. */
async function openEvents() {
  const net = new MemoryTransport();
  const sent: string[] = [];
  const makeBus = net.eventPublisher.bind(net);
  net.eventPublisher = (): IEventPublisher => {
    const bus = makeBus();
    const publish = bus.publish.bind(bus);
    bus.publish = (tag, body) => (sent.push(tag), publish(tag, body));
    return bus;
  };
  const sockDir = `/brine-events-test-${++buses}`;
  const events = new MasterEvents(net);
  await events.open(sockDir);
  closers.push(() => events.close());
  return { net, events, sent, address: eventBusAddress(sockDir) };
}

describe('MasterEvents', () => {
  it('sends an event to the bus only when a subscriber wants its tag', async () => {
    const { net, events, sent, address } = await openEvents();
    events.fire('salt/job/1/ret/m1', { id: 'm1' });
    expect(sent).toEqual([]);
    const sub = net.eventSubscriber(address, ['salt/job/']);
    closers.push(() => sub.close());
    await sub.sync(1000);
    events.fire('salt/job/2/ret/m1', { id: 'm1', return: true });
    events.fire('salt/auth', { id: 'm2' });
    expect(sent).toEqual(['salt/job/2/ret/m1']);
    const got = await sub.next(1000);
    expect(got?.tag).toBe('salt/job/2/ret/m1');
    expect(decode(got!.body)).toMatchObject({ id: 'm1', return: true, _stamp: expect.any(String) });
  });

  it('still gives every event to the in-process listeners when nobody is on the bus', async () => {
    const { events, sent } = await openEvents();
    const heard: Array<[string, Record<string, unknown>]> = [];
    const stop = events.subscribe((tag, data) => heard.push([tag, data]));
    events.fire('salt/auth', { id: 'm2' });
    stop();
    events.fire('salt/auth', { id: 'm3' });
    expect(sent).toEqual([]);
    expect(heard).toEqual([['salt/auth', { id: 'm2', _stamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+$/) }]]);
  });
});
