/**
 * The minion's subscription in plain Node (zmtp-subscriber.ts), where it must behave as libzmq's
 * SUB beyond what the transport suite's delivery tests show: it stops reading at its high-water
 * mark and loses nothing, it drops a peer that does not speak ZMTP as a publisher and connects
 * again, with libzmq's growing delay, it survives any bytes a publisher sends, it keeps its
 * connection alive when asked (Salt's tcp_keepalive), and it refuses a bad address at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, Socket, type Server } from 'node:net';
import { GREETING, readyCommand } from '../../../src/core/transport/zmtp';
import { ZmtpPublishServer } from '../../../src/core/transport/zmtp-publisher';
import { ZmtpRequestClient } from '../../../src/core/transport/zmtp-request';
import { ZmtpRequestServer } from '../../../src/core/transport/zmtp-router';
import { ZmtpSubscribeClient } from '../../../src/core/transport/zmtp-subscriber';
import { brokenZmtp, seeded } from '../../fuzz/frames';
import { freePort } from '../../support/ports';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Resolves once `done()` holds, checking after each turn of the event loop (no timers). */
async function until(done: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not ${what} within ${limitMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A TCP server that hands each connection to `onConnection`, and when each came. */
async function rawServer(onConnection: (socket: Socket) => void): Promise<{ address: string; times: number[]; close(): Promise<void> }> {
  const times: number[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    times.push(performance.now());
    sockets.push(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      sockets.forEach((socket) => socket.destroy());
    });
    return closed;
  };
  closers.push(close);
  return { address: `tcp://127.0.0.1:${port}`, times, close };
}

describe('the ZMTP subscriber', () => {
  it('stops reading at its high-water mark, the rest waiting in TCP and the publisher, and loses nothing', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const pub = new ZmtpPublishServer({ highWaterMark: 0 });
    await pub.bind(address);
    closers.push(() => pub.close());
    const sub = new ZmtpSubscribeClient({ receiveHighWaterMark: 4 });
    closers.push(() => sub.close());
    sub.connect(address);
    await sub.whenConnected();
    const it = sub.messages()[Symbol.asyncIterator]();
    // The subscription travels after the handshake: publish a marker until it arrives.
    let first: IteratorResult<Buffer[]> | undefined;
    void it.next().then((r) => (first = r));
    while (!first) {
      await pub.publish([Buffer.from('marker')]);
      await new Promise((r) => setImmediate(r));
    }
    // Drain the extra markers, then publish more than TCP's buffers hold, reading none of it.
    const held = sub as unknown as { inbox: { length: number }; socket: Socket };
    while (held.inbox.length > 0) await it.next();
    const body = Buffer.alloc(256 * 1024);
    const count = 64;
    for (let i = 0; i < count; i++) {
      body.writeUInt32BE(i, 0);
      await pub.publish([Buffer.from('job'), body]);
    }
    const subscriber = [...(pub as unknown as { subscribers: Map<{ queuedBytes: number }, unknown> }).subscribers.keys()][0];
    // The subscriber stopped reading: what it does not take waits at the publisher.
    await until(() => held.socket.isPaused() && subscriber.queuedBytes > 0, 'paused with bytes queued at the publisher');
    expect(held.inbox.length).toBeLessThanOrEqual(8);
    const got: number[] = [];
    while (got.length < count) {
      const { value } = await it.next();
      if (String(value![0]) === 'job') got.push(value![1].readUInt32BE(0));
    }
    expect(got).toEqual([...Array(count).keys()]);
  });

  it('drops a peer that does not speak ZMTP, connects again after reconnectInterval, doubling up to reconnectMax', async () => {
    const { address, times } = await rawServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const sub = new ZmtpSubscribeClient({ reconnectInterval: 20, reconnectMax: 80 });
    closers.push(() => sub.close());
    sub.connect(address);
    await until(() => times.length >= 5, 'connected five times');
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    // A timer never fires early: each gap is at least its delay (20, 40, 80, then 80 again).
    [20, 40, 80, 80].forEach((delay, i) => expect(gaps[i]).toBeGreaterThanOrEqual(delay - 1));
    expect(sub.isConnected).toBe(false);
  });

  it('takes no peer but a publisher: a request port is dropped and connected to again', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    let connections = 0;
    const router = new ZmtpRequestServer({ admit: () => (connections++, true) });
    await router.bind(address);
    closers.push(() => router.close());
    const sub = new ZmtpSubscribeClient({ reconnectInterval: 10 });
    closers.push(() => sub.close());
    sub.connect(address);
    await until(() => connections >= 3, 'connected three times');
    expect(sub.isConnected).toBe(false);
  });

  it('survives any bytes from its publisher: 120 connections of seeded garbage and broken ZMTP, then takes a real publication', async () => {
    const r = seeded(16);
    // What a publisher says first: our greeting (version 3.1, NULL) and READY as a PUB.
    const valid = Buffer.concat([GREETING, readyCommand('PUB')]);
    let served = 0;
    const { address, close } = await rawServer((socket) => {
      const bytes = brokenZmtp(r, valid, served++);
      socket.end(bytes);
    });
    const sub = new ZmtpSubscribeClient({ reconnectInterval: 1 });
    closers.push(() => sub.close());
    const got = sub.messages()[Symbol.asyncIterator]().next();
    sub.connect(address);
    await until(() => served >= 120, 'served 120 connections');
    // The same address, now a real publisher: the subscriber is still trying, and takes its jobs.
    await close();
    const pub = new ZmtpPublishServer();
    await pub.bind(address);
    closers.push(() => pub.close());
    await sub.whenConnected();
    let value: Buffer[] | undefined;
    void got.then((res) => (value = res.value));
    while (!value) {
      await pub.publish([Buffer.from('job')]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(value.map(String)).toEqual(['job']);
  });

  it('says which address it cannot use, and connects to one publisher only', async () => {
    const sub = new ZmtpSubscribeClient();
    closers.push(() => sub.close());
    expect(() => sub.connect('tcp://127.0.0.1')).toThrow(/not an address a subscription can connect to/);
    expect(() => sub.connect('tcp://127.0.0.1:0')).toThrow(/port 0/);
    const [one, other] = [await freePort(), await freePort()];
    sub.connect(`tcp://127.0.0.1:${one}`);
    expect(() => sub.connect(`tcp://127.0.0.1:${other}`)).toThrow(/already connects elsewhere/);
  });

  it('ends messages() on close, with a reader waiting', async () => {
    const sub = new ZmtpSubscribeClient();
    sub.connect(`tcp://127.0.0.1:${await freePort()}`);
    const next = sub.messages()[Symbol.asyncIterator]().next();
    sub.close();
    expect(await next).toEqual({ value: undefined, done: true });
  });
});

describe('TCP keepalive (Salt tcp_keepalive), on the subscriber and the request client', () => {
  it('is set on each connection with its idle time when asked, and not otherwise', async () => {
    const calls: unknown[][] = [];
    const spy = vi.spyOn(Socket.prototype, 'setKeepAlive').mockImplementation(function (this: Socket, ...args: unknown[]) {
      calls.push(args);
      return this;
    });
    closers.push(() => spy.mockRestore());
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const pub = new ZmtpPublishServer();
    await pub.bind(address);
    closers.push(() => pub.close());
    const kept = new ZmtpSubscribeClient({ keepAlive: { idleSeconds: 300 } });
    closers.push(() => kept.close());
    kept.connect(address);
    await kept.whenConnected();
    const plain = new ZmtpSubscribeClient();
    closers.push(() => plain.close());
    plain.connect(address);
    await plain.whenConnected();
    expect(calls).toEqual([[true, 300_000]]);
    // The request client the same way (Salt's minion sets it on both connections).
    const router = new ZmtpRequestServer();
    const at = `tcp://127.0.0.1:${await freePort()}`;
    await router.bind(at);
    closers.push(() => router.close());
    router.serve(
      async (payload) => payload,
      () => undefined,
    );
    for (const keepAlive of [{ idleSeconds: 60 }, undefined]) {
      const client = new ZmtpRequestClient(at, { keepAlive });
      closers.push(() => client.close());
      expect(String(await client.request(Buffer.from('hi'), 5000))).toBe('hi');
    }
    expect(calls).toEqual([
      [true, 300_000],
      [true, 60_000],
    ]);
  });
});
