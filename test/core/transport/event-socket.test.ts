/**
 * The master's event bus and intake on Unix stream sockets (event-socket.ts): Salt 3007's framing
 * byte for byte, frames cut from a stream at any point, what a listener that is not brine's gets,
 * and what the master does with bytes that are not frames. transport.test.ts runs the contract
 * the layers above rely on (sync, next, wants) over the same classes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode, encode } from '../../../src/core/protocol/msgpack';
import {
  eventOf,
  FrameReader,
  frameEvent,
  StreamEventPublisher,
  StreamEventPuller,
  StreamEventPusher,
  StreamEventSubscriber,
} from '../../../src/core/transport/event-socket';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function socketFile(name = 'master_event_pub.ipc'): string {
  const dir = mkdtempSync(join(tmpdir(), 'brine-event-socket-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, name);
}

async function bus(path = socketFile()): Promise<StreamEventPublisher> {
  const pub = new StreamEventPublisher();
  await pub.bind(`ipc://${path}`);
  closers.push(() => pub.close());
  return pub;
}

/** A brine listener on `path`, closed after the test, once the publisher has its subscription. */
async function listener(path: string, prefixes: string[]): Promise<StreamEventSubscriber> {
  const sub = new StreamEventSubscriber(path, prefixes);
  closers.push(() => sub.close());
  await sub.sync(5000);
  return sub;
}

/** A raw connection, collecting what arrives; `frames()` cuts it as Salt's Unpacker would. */
async function rawClient(path: string) {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
  closers.push(() => socket.destroy());
  const reader = new FrameReader(1 << 20);
  const frames: Buffer[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
  socket.on('error', () => undefined);
  return {
    socket,
    frames,
    closed,
    /** Resolves once `count` frames have arrived. */
    async waitFor(count: number): Promise<Buffer[]> {
      while (frames.length < count) await new Promise((resolve) => socket.once('data', resolve));
      return frames;
    },
  };
}

describe("Salt 3007's framing (salt/transport/frame.py, salt/utils/event.py)", () => {
  it('frames an event as msgpack {head: {}, body: bin(tag + "\\n\\n" + data)}, at every bin size', () => {
    for (const size of [0, 10, 300, 70_000]) {
      const data = Buffer.alloc(size, 0x61);
      const frame = frameEvent('salt/job/1/ret/m1', data);
      // What Salt's frame_msg(body) packs (msgpack-python, use_bin_type=True): a fixmap of two
      // str keys, an empty map, the smallest bin that holds the body.
      const body = Buffer.concat([Buffer.from('salt/job/1/ret/m1\n\n'), data]);
      const binHeader =
        body.length < 0x100
          ? Buffer.from([0xc4, body.length])
          : body.length < 0x10000
            ? Buffer.from([0xc5, body.length >> 8, body.length & 0xff])
            : Buffer.from([0xc6, 0, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff]);
      const salt = Buffer.concat([
        Buffer.from([0x82, 0xa4]),
        Buffer.from('head'),
        Buffer.from([0x80, 0xa4]),
        Buffer.from('body'),
        binHeader,
        body,
      ]);
      expect(frame.equals(salt), `data of ${size} bytes`).toBe(true);
      expect(decode(frame)).toEqual({ head: {}, body });
      expect(eventOf(frame)).toEqual({ tag: 'salt/job/1/ret/m1', body: data });
    }
  });

  it('reads frames whatever their key order and string type, as another packer may send them', () => {
    const packed = encode({ body: Buffer.from('tag/x\n\n\x80', 'latin1'), head: { x: 1 } });
    expect(eventOf(packed)).toEqual({ tag: 'tag/x', body: Buffer.from([0x80]) });
    // A tag and data that are valid UTF-8 decode as a str in Salt's raw dialect: still an event.
    expect(eventOf(encode({ head: {}, body: 'tag/y\n\nplain' }))).toEqual({ tag: 'tag/y', body: Buffer.from('plain') });
    for (const notAnEvent of [
      encode({ head: {} }),
      encode({ head: {}, body: 'no separator' }),
      encode([1, 2]),
      encode({ head: {}, body: '\n\nno tag' }),
    ]) {
      expect(eventOf(notAnEvent)).toBeNull();
    }
    expect(eventOf(Buffer.from([0xc1]))).toBeNull();
  });
});

describe('FrameReader', () => {
  it('gives the same frames however the stream is cut', () => {
    const frames = [frameEvent('a', Buffer.alloc(5, 1)), frameEvent('b/c', Buffer.alloc(400, 2)), frameEvent('d', Buffer.alloc(70_000, 3))];
    const stream = Buffer.concat(frames);
    for (const step of [1, 2, 7, 64, 1000, 65_536, stream.length]) {
      const reader = new FrameReader(1 << 20);
      const got: Buffer[] = [];
      for (let at = 0; at < stream.length; at += step) got.push(...reader.push(stream.subarray(at, at + step)));
      expect(
        got.map((f) => eventOf(f)?.tag),
        `cut every ${step} bytes`,
      ).toEqual(['a', 'b/c', 'd']);
      expect(got.every((f, i) => f.equals(frames[i]))).toBe(true);
    }
  });

  it('refuses a frame over its limit from its header, before the bytes are held', () => {
    const reader = new FrameReader(1000);
    const first = frameEvent('ok', Buffer.alloc(3));
    const frames = reader.push(
      Buffer.concat([first, Buffer.from([0x82, 0xa4, ...Buffer.from('head'), 0x80, 0xa4, ...Buffer.from('body'), 0xc6, 0, 1, 0, 0])]),
    );
    expect(frames).toEqual([first]);
    expect(reader.error?.message).toMatch(/over the 1000-byte limit/);
    expect(reader.push(first)).toEqual([]);
  });

  it('gives the frames before bytes that are not msgpack, then nothing', () => {
    const reader = new FrameReader(1000);
    const first = frameEvent('ok', Buffer.alloc(3));
    expect(reader.push(Buffer.concat([first, Buffer.from([0xc1]), first]))).toEqual([first]);
    expect(reader.error).toMatchObject({ code: 'MSGPACK_TYPE' });
  });
});

describe('StreamEventPublisher', () => {
  it('sends a listener that never subscribes (as Salt tools do) every event, and counts it in wants()', async () => {
    const path = socketFile();
    const pub = await bus(path);
    const salt = await rawClient(path);
    // Nothing tells when the publisher has accepted the connection but a first event through it.
    await pub.publish('salt/auth', encode({ id: 'm1' }));
    await salt.waitFor(1);
    expect(pub.wants('anything/at/all')).toBe(true);
    await pub.publish('salt/key', encode({ id: 'm1', act: 'accept' }));
    const frames = await salt.waitFor(2);
    expect(frames.map((f) => eventOf(f)!.tag)).toEqual(['salt/auth', 'salt/key']);
    expect(decode(eventOf(frames[1])!.body)).toEqual({ id: 'm1', act: 'accept' });
  });

  it("answers a listener's sync to it alone, and sends each listener only the tags it subscribed to", async () => {
    const path = socketFile();
    const pub = await bus(path);
    const jobs = new StreamEventSubscriber(path, ['salt/job/']);
    closers.push(() => jobs.close());
    const salt = await rawClient(path);
    await jobs.sync(5000);
    await pub.publish('salt/auth', encode({ id: 'm1' }));
    await pub.publish('salt/job/1/ret/m1', encode({ id: 'm1' }));
    expect((await jobs.next(5000))!.tag).toBe('salt/job/1/ret/m1');
    // The raw listener got both events and no sync echo.
    expect((await salt.waitFor(2)).map((f) => eventOf(f)!.tag)).toEqual(['salt/auth', 'salt/job/1/ret/m1']);
  });

  it('ends a connection that sends bytes that are not frames, and goes on serving the others', async () => {
    const path = socketFile();
    const pub = await bus(path);
    const sub = await listener(path, ['']);
    const bad = await rawClient(path);
    bad.socket.write(Buffer.from([0xc1, 0xc1, 0xc1]));
    await bad.closed;
    const big = await rawClient(path);
    // A frame declaring 16 MiB: over what a listener may send the publisher.
    big.socket.write(Buffer.from([0x82, 0xa4, ...Buffer.from('head'), 0x80, 0xa4, ...Buffer.from('body'), 0xc6, 1, 0, 0, 0]));
    await big.closed;
    await pub.publish('still/here', encode({ ok: true }));
    expect((await sub.next(5000))?.tag).toBe('still/here');
  });

  it('cuts off a listener that stopped reading, and goes on serving the others', async () => {
    const path = socketFile();
    const pub = new StreamEventPublisher(1 << 20);
    await pub.bind(path);
    closers.push(() => pub.close());
    const sub = await listener(path, ['']);
    const stuck = await rawClient(path);
    stuck.socket.pause();
    const big = encode({ pad: Buffer.alloc(64 * 1024) });
    // 6.4 MiB: past the kernel's socket buffers and the publisher's 1 MiB.
    for (let i = 0; i < 100; i++) {
      await pub.publish('big/event', big);
      // The live listener reads what it is sent.
      expect((await sub.next(5000))?.tag).toBe('big/event');
    }
    // Reading again, the stuck listener gets what was sent before the cut, then the end.
    stuck.socket.resume();
    await stuck.closed;
    expect(stuck.frames.length).toBeGreaterThan(0);
    expect(stuck.frames.length).toBeLessThan(100);
    await pub.publish('after/cut', encode({}));
    expect((await sub.next(5000))?.tag).toBe('after/cut');
  });

  it("makes its socket file with Salt's mode, removes it on close, and replaces a stale one", async () => {
    const path = socketFile();
    writeFileSync(path, 'left by a master that was killed');
    // A regular file is not a socket nobody answers on: only stale sockets are replaced.
    await expect(new StreamEventPublisher().bind(path)).rejects.toMatchObject({
      code: 'ADDRESS_IN_USE',
      message: expect.stringContaining('not a socket'),
    });
    rmSync(path);
    // A socket file whose listener is gone without removing it: a process killed with -9.
    const killed = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await new Promise((resolve) => killed.stdout.once('data', resolve));
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));
    expect(existsSync(path)).toBe(true);
    const pub = await bus(path);
    expect(statSync(path).mode & 0o777).toBe(0o660);
    const second = new StreamEventPublisher();
    await expect(second.bind(path)).rejects.toMatchObject({ code: 'ADDRESS_IN_USE', hint: expect.stringContaining('sock_dir') });
    await pub.close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('StreamEventSubscriber', () => {
  it('connects again when the master comes back, and a sync then succeeds', async () => {
    const path = socketFile();
    const first = await bus(path);
    const sub = await listener(path, ['salt/']);
    await first.close();
    const second = await bus(path);
    await sub.sync(5000);
    await second.publish('salt/auth', encode({ id: 'back' }));
    expect((await sub.next(5000))?.tag).toBe('salt/auth');
  });

  it('waits for a master not started yet, and says clearly when none answers', async () => {
    const path = socketFile();
    const early = new StreamEventSubscriber(path, ['salt/']);
    closers.push(() => early.close());
    const synced = early.sync(10_000);
    const pub = await bus(path);
    await synced;
    expect(pub.wants('salt/x')).toBe(true);
    const lonely = new StreamEventSubscriber(socketFile(), ['salt/']);
    closers.push(() => lonely.close());
    await expect(lonely.sync(200)).rejects.toMatchObject({ code: 'TIMEOUT', hint: expect.stringContaining('salt-master') });
  });

  it('gives null from next() after close(), and rejects a sync that was waiting', async () => {
    const sub = new StreamEventSubscriber(socketFile(), ['']);
    const waiting = sub.sync(10_000);
    const next = sub.next(10_000);
    sub.close();
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' });
    expect(await next).toBeNull();
  });
});

describe('the event intake', () => {
  it('takes events pushed as Salt pushes them, and drops anything else', async () => {
    const path = socketFile('master_event_pull.ipc');
    const got: Array<[string, Buffer]> = [];
    const arrived: Array<() => void> = [];
    const puller = new StreamEventPuller();
    await puller.bind(path, (tag, body) => (got.push([tag, body]), arrived.shift()?.()));
    closers.push(() => puller.close());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const raw = await rawClient(path);
    // Salt's frame_msg_ipc(event, raw_body=True), then garbage: the connection ends, nothing else.
    raw.socket.write(
      Buffer.concat([encode({ head: {}, body: Buffer.from('salt/custom\n\n\x81\xa1a\x01', 'latin1') }), Buffer.from([0xc1])]),
    );
    await raw.closed;
    const pusher = new StreamEventPusher(`ipc://${path}`);
    closers.push(() => pusher.close());
    const second = new Promise<void>((resolve) => arrived.push(resolve));
    await pusher.push('brine/webhook', encode({ b: 2 }));
    await second;
    expect(got.map(([tag, body]) => [tag, decode(body)])).toEqual([
      ['salt/custom', { a: 1 }],
      ['brine/webhook', { b: 2 }],
    ]);
  });

  it('fails a push clearly when no master listens', async () => {
    const pusher = new StreamEventPusher(socketFile('master_event_pull.ipc'), 300);
    closers.push(() => pusher.close());
    await expect(pusher.push('x', encode({}))).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining('nothing listens'),
    });
  });

  it('refuses an address that is not a socket file, or a path too long for one (libuv would cut it short)', async () => {
    expect(() => new StreamEventPusher('tcp://127.0.0.1:4506')).toThrow(/Unix socket files/);
    const long = join(socketFile(), 'x'.repeat(120));
    await expect(new StreamEventPublisher().bind(long)).rejects.toMatchObject({
      code: 'TRANSPORT',
      hint: expect.stringContaining('sock_dir'),
    });
    expect(() => new StreamEventSubscriber(long, [''])).toThrow(/more than the 107 a Unix socket allows/);
  });
});
