/**
 * One suite for every transport and address kind (as zeromq.js's own tests do): ZeroMQ over
 * tcp:// and ipc://, and the in-memory transport; the ZMTP clients in plain Node (a minion's and
 * the commands') against libzmq's ports, as against a Salt master; the ports in plain Node against
 * libzmq's clients, as with a Salt minion; and Node on both sides (zmq_ports: node, the default).
 * Each test gets fresh addresses; everything opened is closed in afterEach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryTransport } from '../../../src/core/transport/memory';
import type { Transport } from '../../../src/core/transport/types';
import { zeromqTransport } from '../../../src/core/transport/zeromq';
import { ZmtpRequestClient } from '../../../src/core/transport/zmtp-request';
import { ZmtpPublishServer } from '../../../src/core/transport/zmtp-publisher';
import { ZmtpRequestServer } from '../../../src/core/transport/zmtp-router';
import { ZmtpSubscribeClient } from '../../../src/core/transport/zmtp-subscriber';
import { nodeTransport } from '../../../src/core/transport/zmq-ports';
import { freePort } from '../../support/ports';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'brine-transport-'));
  closers.unshift(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let memoryCount = 0;
interface Case {
  name: string;
  transport: () => Transport;
  /** A fresh address no one uses. */
  address: () => Promise<string>;
  /** The request client is the ZMTP one (it reads a refusal at once, where libzmq's times out). */
  zmtp?: boolean;
  /** The ports in plain Node (zmtp-server.ts) with libzmq's clients: the event bus is the others' to test. */
  nodeServers?: boolean;
}

/** libzmq's ports, the clients in plain Node (a brine minion's against a Salt master). */
const zmtpClient: Transport = {
  ...zeromqTransport,
  requestClient: (address, options) => new ZmtpRequestClient(address, options),
  subscribeClient: (options) => new ZmtpSubscribeClient(options),
};
/** The master's ports in plain Node, every other socket libzmq's. */
const nodeServers: Transport = {
  ...zeromqTransport,
  requestServer: (options) => new ZmtpRequestServer(options),
  publishServer: (options) => new ZmtpPublishServer(options),
};
const tcpAddress = async () => `tcp://127.0.0.1:${await freePort()}`;
const ipcAddress = async () => `ipc://${join(tempDir(), 'sock.ipc')}`;

const cases: Case[] = [
  { name: 'zeromq tcp://', transport: () => zeromqTransport, address: tcpAddress },
  { name: 'zeromq ipc://', transport: () => zeromqTransport, address: ipcAddress },
  { name: 'memory', transport: () => new MemoryTransport(), address: async () => `mem://test-${++memoryCount}` },
  { name: 'ZMTP clients, tcp://', transport: () => zmtpClient, address: tcpAddress, zmtp: true },
  { name: 'ZMTP clients, ipc://', transport: () => zmtpClient, address: ipcAddress, zmtp: true },
  { name: 'Node servers, tcp://', transport: () => nodeServers, address: tcpAddress, nodeServers: true },
  { name: 'Node servers, ipc://', transport: () => nodeServers, address: ipcAddress, nodeServers: true },
  { name: 'Node on both sides, tcp://', transport: () => nodeTransport, address: tcpAddress, zmtp: true, nodeServers: true },
  { name: 'Node on both sides, ipc://', transport: () => nodeTransport, address: ipcAddress, zmtp: true, nodeServers: true },
];

describe.each(cases)('transport over $name', ({ name, transport: make, address, zmtp, nodeServers: ownServers }) => {
  describe('request port', () => {
    it('answers each client with its own reply, concurrently, and queues requests on one client', async () => {
      const t = make();
      const at = await address();
      const server = t.requestServer();
      await server.bind(at);
      closers.push(() => server.close());
      server.serve(
        async (payload) => Buffer.concat([Buffer.from('re:'), payload]),
        (err) => {
          throw err;
        },
      );
      const clients = [1, 2, 3].map(() => t.requestClient(at));
      clients.forEach((c) => closers.push(() => c.close()));
      const replies = await Promise.all(clients.map((c, i) => c.request(Buffer.from(`m${i}`), 5000)));
      expect(replies.map(String)).toEqual(['re:m0', 're:m1', 're:m2']);
      const queued = await Promise.all([1, 2, 3].map((i) => clients[0].request(Buffer.from(`q${i}`), 5000)));
      expect(queued.map(String)).toEqual(['re:q1', 're:q2', 're:q3']);
    });

    it('carries a request and a reply far larger than a connection buffer (1 KiB on ZeroMQ), intact', async () => {
      const t = make();
      const at = await address();
      const server = t.requestServer();
      await server.bind(at);
      closers.push(() => server.close());
      server.serve(
        async (payload) => Buffer.concat([payload, payload]),
        (err) => {
          throw err;
        },
      );
      const client = t.requestClient(at);
      closers.push(() => client.close());
      const big = randomBytes(3 * 1024 * 1024 + 7);
      const reply = await client.request(big, 10_000);
      expect(reply.equals(Buffer.concat([big, big]))).toBe(true);
      // And small ones after it on the same connection.
      expect(String(await client.request(Buffer.from('x'), 5000))).toBe('xx');
    });

    it('delivers a request sent before the server binds, once it does', async () => {
      const t = make();
      const at = await address();
      const client = t.requestClient(at, { reconnectInterval: 20 });
      closers.push(() => client.close());
      const reply = client.request(Buffer.from('early'), 5000);
      const server = t.requestServer();
      await server.bind(at);
      closers.push(() => server.close());
      server.serve(
        async (payload) => payload,
        () => undefined,
      );
      expect(String(await reply)).toBe('early');
    });

    it('times out with a typed error and recovers for the next request', async () => {
      const t = make();
      const at = await address();
      const server = t.requestServer();
      await server.bind(at);
      closers.push(() => server.close());
      server.serve(
        async (payload) => (payload.toString() === 'drop' ? null : payload),
        () => undefined,
      );
      const client = t.requestClient(at);
      closers.push(() => client.close());
      await expect(client.request(Buffer.from('drop'), 200)).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(String(await client.request(Buffer.from('ok'), 5000))).toBe('ok');
    });

    // libzmq's client waits out a refused connection; the ZMTP client reads the master's ERROR.
    it('asks admit about each new connection with its address; a refused request fails and the next connection is answered', async () => {
      const t = make();
      const at = await address();
      const asked: string[] = [];
      // Refuses the first connection, admits the next.
      const server = t.requestServer({ admit: (from) => asked.push(from) > 1 });
      await server.bind(at);
      closers.push(() => server.close());
      server.serve(
        async (payload) => payload,
        () => undefined,
      );
      const client = t.requestClient(at);
      closers.push(() => client.close());
      const refused = client.request(Buffer.from('refused'), 300);
      if (zmtp)
        await expect(refused).rejects.toMatchObject({ code: 'TRANSPORT', message: expect.stringMatching(/refused the connection/) });
      else await expect(refused).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(String(await client.request(Buffer.from('new connection'), 5000))).toBe('new connection');
      expect(String(await client.request(Buffer.from('same connection'), 5000))).toBe('same connection');
      expect(asked).toHaveLength(2);
      if (name.endsWith('tcp://')) expect(asked).toEqual(['127.0.0.1', '127.0.0.1']);
      if (name === 'memory') expect(asked).toEqual(['memory', 'memory']);
    });

    it('frees its address on close, so a new server binds it at once', async () => {
      const t = make();
      const at = await address();
      for (let round = 0; round < 3; round++) {
        const server = t.requestServer();
        await server.bind(at);
        server.serve(
          async (payload) => payload,
          () => undefined,
        );
        const client = t.requestClient(at);
        expect(String(await client.request(Buffer.from(`round ${round}`), 5000))).toBe(`round ${round}`);
        client.close();
        await server.close();
      }
    });

    it('refuses requests on a closed client with CLOSED', async () => {
      const t = make();
      const client = t.requestClient(await address());
      client.close();
      await expect(client.request(Buffer.from('x'), 200)).rejects.toMatchObject({ code: 'CLOSED' });
    });

    // ZeroMQ binds an ipc:// path that is in use by replacing the socket file (libzmq unlinks it):
    // only tcp:// and the in-memory transport can refuse a second server.
    it.skipIf(name.endsWith('ipc://'))('reports an address in use as a typed error', async () => {
      const t = make();
      const at = await address();
      const a = t.requestServer();
      await a.bind(at);
      closers.push(() => a.close());
      const b = t.requestServer();
      closers.push(() => b.close());
      await expect(b.bind(at)).rejects.toMatchObject({ code: 'ADDRESS_IN_USE' });
    });
  });

  describe('publish port', () => {
    /** A subscriber connected to a fresh publish port, and the first of `frames` published until one arrives. */
    async function firstDelivered(frames: Buffer[]): Promise<{ got: Buffer[]; connected: boolean }> {
      const t = make();
      const at = await address();
      const pub = t.publishServer();
      await pub.bind(at);
      closers.push(() => pub.close());
      const sub = t.subscribeClient();
      closers.push(() => sub.close());
      sub.connect(at);
      await sub.whenConnected();
      const connected = sub.isConnected;
      const it = sub.messages()[Symbol.asyncIterator]();
      // The subscription travels after the handshake: publish until the first one arrives.
      let got: IteratorResult<Buffer[]> | undefined;
      void it.next().then((r) => (got = r));
      while (!got) {
        await pub.publish(frames);
        await new Promise((r) => setImmediate(r));
      }
      return { got: got.value, connected };
    }

    it('delivers publications to a connected subscriber, frames intact', async () => {
      const { got, connected } = await firstDelivered([Buffer.from('topic'), Buffer.from('job')]);
      expect(connected).toBe(true);
      expect(got.map(String)).toEqual(['topic', 'job']);
    });

    it('delivers a publication far larger than a connection buffer (1 KiB on ZeroMQ), intact', async () => {
      const big = randomBytes(2 * 1024 * 1024 + 3);
      const { got } = await firstDelivered([Buffer.from('topic'), big]);
      expect(got[1].equals(big)).toBe(true);
    });

    it('tells the subscriber when its publisher comes back after a drop', async () => {
      const t = make();
      const at = await address();
      const first = t.publishServer();
      await first.bind(at);
      const sub = t.subscribeClient({ reconnectInterval: 20, reconnectMax: 50 });
      closers.push(() => sub.close());
      sub.connect(at);
      await sub.whenConnected();
      const back = new Promise<number>((resolve) => sub.onReconnect(resolve));
      await first.close();
      const second = t.publishServer();
      await second.bind(at);
      closers.push(() => second.close());
      const downSince = await back;
      expect(downSince).toBeGreaterThan(0);
      expect(sub.isConnected).toBe(true);
    });
  });

  // The event bus is only ever a Unix socket file (event-socket.ts; or in memory): a tcp://
  // address is refused at once (event-socket.test.ts).
  describe.skipIf(name === 'zeromq tcp://' || zmtp || ownServers)('event bus', () => {
    it('delivers every event published after sync(), in order, for its prefixes only', async () => {
      const t = make();
      const at = await address();
      const bus = t.eventPublisher();
      await bus.bind(at);
      closers.push(() => bus.close());
      const sub = t.eventSubscriber(at, ['salt/job/']);
      closers.push(() => sub.close());
      await sub.sync(5000);
      for (let i = 0; i < 5; i++) await bus.publish(`salt/job/1/ret/m${i}`, Buffer.from(String(i)));
      await bus.publish('salt/auth', Buffer.from('not for us'));
      const events = [];
      for (let i = 0; i < 5; i++) events.push((await sub.next(5000))!);
      expect(events.map((e) => e.tag)).toEqual([0, 1, 2, 3, 4].map((i) => `salt/job/1/ret/m${i}`));
      expect(events.map((e) => String(e.body))).toEqual(['0', '1', '2', '3', '4']);
      expect(await sub.next(100)).toBeNull();
    });

    it('knows which tags a subscriber wants, from its sync() on until it goes away', async () => {
      const t = make();
      const at = await address();
      const bus = t.eventPublisher();
      await bus.bind(at);
      closers.push(() => bus.close());
      expect(bus.wants('salt/job/1/ret/m1')).toBe(false);
      const sub = t.eventSubscriber(at, ['salt/job/', 'salt/auth']);
      await sub.sync(5000);
      expect(bus.wants('salt/job/1/ret/m1')).toBe(true);
      expect(bus.wants('salt/auth')).toBe(true);
      expect(bus.wants('salt/key')).toBe(false);
      // The sync topic itself is no subscription to events.
      expect(bus.wants('brine/sync/x')).toBe(false);
      sub.close();
      // A gone subscriber's unsubscriptions reach the publisher a moment later.
      const deadline = Date.now() + 5000;
      while (bus.wants('salt/job/1/ret/m1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(bus.wants('salt/job/1/ret/m1')).toBe(false);
    });

    it('says clearly when no master answers', async () => {
      const t = make();
      const sub = t.eventSubscriber(await address(), ['salt/']);
      closers.push(() => sub.close());
      await expect(sub.sync(200)).rejects.toMatchObject({ code: 'TIMEOUT' });
    });
  });
});

describe('ZeroMQ ports every minion connects to', () => {
  // 8 KiB in and out per connection is libzmq's default; at 10,000 minions the difference is
  // about 110 MiB on the request port (see PER_CONNECTION_BATCH in src/core/transport/zeromq.ts).
  it('read and write through 1 KiB buffers per connection (ZMQ_IN_BATCH_SIZE, ZMQ_OUT_BATCH_SIZE)', async () => {
    const pub = zeromqTransport.publishServer();
    const req = zeromqTransport.requestServer();
    closers.push(
      () => pub.close(),
      () => req.close(),
    );
    for (const server of [pub, req]) {
      const socket = (server as unknown as { socket: { getInt32Option(option: number): number } }).socket;
      expect([socket.getInt32Option(101), socket.getInt32Option(102)]).toEqual([1024, 1024]);
    }
  });

  // In a process of its own (the built tree), so that no other test's context counts. Threads are
  // counted, not named: libzmq's threads name themselves a moment after they start.
  it("a minion's subscribe and request sockets share one libzmq context: two threads (I/O and reaper), not four", async () => {
    const transport = join(__dirname, '..', '..', '..', 'dist', 'src', 'core', 'transport', 'zeromq.js');
    const [pubPort, retPort] = [await freePort(), await freePort()];
    const script = [
      `const { zeromqTransport } = require(${JSON.stringify(transport)});`,
      'const { readdirSync } = require("node:fs");',
      'const threads = () => readdirSync("/proc/self/task").length;',
      'const before = threads();',
      `const sub = zeromqTransport.subscribeClient(); sub.connect('tcp://127.0.0.1:${pubPort}');`,
      `const req = zeromqTransport.requestClient('tcp://127.0.0.1:${retPort}');`,
      // libzmq starts a context's threads inside the call that makes its first socket.
      'process.stdout.write(String(threads() - before));',
      'sub.close(); req.close();',
    ].join('\n');
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    expect(Number(res.stdout)).toBe(2);
  });
});
