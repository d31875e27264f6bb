import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventPublisher,
  EventSubscriber,
  PublishServer,
  RequestClient,
  RequestServer,
  SubscribeClient,
} from '../../../src/core/transport/zeromq';
import { freePort } from '../../support/ports';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('request port', () => {
  it('answers each REQ client with its own reply, concurrently', async () => {
    const port = await freePort();
    const server = new RequestServer();
    await server.bind(`tcp://127.0.0.1:${port}`);
    closers.push(() => server.close());
    server.serve(async (payload) => Buffer.concat([Buffer.from('re:'), payload]), (err) => {
      throw err;
    });
    const clients = [1, 2, 3].map(() => new RequestClient(`tcp://127.0.0.1:${port}`));
    clients.forEach((c) => closers.push(() => c.close()));
    const replies = await Promise.all(clients.map((c, i) => c.request(Buffer.from(`m${i}`), 5000)));
    expect(replies.map(String)).toEqual(['re:m0', 're:m1', 're:m2']);
    // Several requests on one client are queued, not refused.
    const queued = await Promise.all([1, 2, 3].map((i) => clients[0].request(Buffer.from(`q${i}`), 5000)));
    expect(queued.map(String)).toEqual(['re:q1', 're:q2', 're:q3']);
  });

  it('times out with a typed error and recovers for the next request', async () => {
    const port = await freePort();
    const server = new RequestServer();
    await server.bind(`tcp://127.0.0.1:${port}`);
    closers.push(() => server.close());
    server.serve(async (payload) => (payload.toString() === 'drop' ? null : payload), () => undefined);
    const client = new RequestClient(`tcp://127.0.0.1:${port}`);
    closers.push(() => client.close());
    await expect(client.request(Buffer.from('drop'), 200)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(String(await client.request(Buffer.from('ok'), 5000))).toBe('ok');
  });

  it('reports a port in use as a typed error', async () => {
    const port = await freePort();
    const a = new RequestServer();
    await a.bind(`tcp://127.0.0.1:${port}`);
    closers.push(() => a.close());
    const b = new RequestServer();
    closers.push(() => b.close());
    await expect(b.bind(`tcp://127.0.0.1:${port}`)).rejects.toMatchObject({ code: 'ADDRESS_IN_USE' });
  });
});

describe('publish port', () => {
  it('delivers a publication to a connected subscriber', async () => {
    const port = await freePort();
    const pub = new PublishServer();
    await pub.bind(`tcp://127.0.0.1:${port}`);
    closers.push(() => pub.close());
    const sub = new SubscribeClient();
    closers.push(() => sub.close());
    sub.connect(`tcp://127.0.0.1:${port}`);
    await sub.whenConnected();
    const it = sub.messages();
    // The subscription travels after the handshake: publish until the first one arrives.
    const first = it.next();
    let got: IteratorResult<Buffer[]> | undefined;
    first.then((r) => (got = r));
    while (!got) {
      await pub.publish([Buffer.from('job')]);
      await new Promise((r) => setImmediate(r));
    }
    expect(String(got.value[0])).toBe('job');
  });
});

describe('event bus', () => {
  it('delivers every event published after sync(), in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brine-bus-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const address = `ipc://${join(dir, 'bus.ipc')}`;
    const bus = new EventPublisher();
    await bus.bind(address);
    closers.push(() => bus.close());
    const sub = new EventSubscriber(address, ['salt/job/']);
    closers.push(() => sub.close());
    await sub.sync(5000);
    for (let i = 0; i < 5; i++) await bus.publish(`salt/job/1/ret/m${i}`, Buffer.from(String(i)));
    await bus.publish('salt/auth', Buffer.from('not for us'));
    const tags: string[] = [];
    for (let i = 0; i < 5; i++) tags.push((await sub.next(5000))!.tag);
    expect(tags).toEqual([0, 1, 2, 3, 4].map((i) => `salt/job/1/ret/m${i}`));
    expect(await sub.next(100)).toBeNull();
  });

  it('says clearly when no master answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brine-bus-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const sub = new EventSubscriber(`ipc://${join(dir, 'none.ipc')}`, ['salt/']);
    closers.push(() => sub.close());
    await expect(sub.sync(200)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});
