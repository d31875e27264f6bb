/**
 * The master's ports in plain Node (zmtp-server.ts, zmtp-router.ts, zmtp-publisher.ts) against
 * peers written here byte by byte and against libzmq's own sockets: subscriptions in both of
 * ZMTP's forms, the high-water mark, routing, refusals, and survival of whatever a peer sends.
 * The shared behaviour of every transport (requests, replies, large messages, admit, reconnects)
 * is in transport.test.ts, which runs it over these ports too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Server, type Socket } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { ZmtpReader, encodeMessage, readyCommand, zmtpCommand } from '../../../src/core/transport/zmtp';
import { ZmtpPort } from '../../../src/core/transport/zmtp-server';
import { ZmtpPublishServer } from '../../../src/core/transport/zmtp-publisher';
import { ZmtpRequestServer } from '../../../src/core/transport/zmtp-router';
import { ZmtpRequestClient } from '../../../src/core/transport/zmtp-request';
import type { RequestServe } from '../../../src/core/transport/types';
import { brokenZmtp, seeded } from '../../fuzz/frames';
import { freePort } from '../../support/ports';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A greeting of ZMTP 3.`minor` with NULL. */
function greeting(minor = 1): Buffer {
  const g = Buffer.alloc(64);
  g[0] = 0xff;
  g[8] = 1;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = minor;
  g.write('NULL', 12, 'latin1');
  return g;
}

/** A peer speaking ZMTP by hand: what it reads is parsed into commands and messages. */
class RawPeer {
  readonly socket: Socket;
  readonly commands: Array<{ name: string; data: Buffer }> = [];
  readonly messages: Buffer[][] = [];
  closed = false;
  private readonly reader = new ZmtpReader({
    command: (name, data) => this.commands.push({ name, data }),
    message: (frames) => this.messages.push(frames),
  });

  constructor(address: string, hello: Buffer) {
    const m = /^tcp:\/\/127\.0\.0\.1:(\d+)$/.exec(address)!;
    this.socket = connect(Number(m[1]), '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closed = true));
    this.socket.write(hello);
    closers.push(() => this.socket.destroy());
  }

  /** Waits until `done()` holds (or fails the test after 5 s). */
  async until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

async function publisher(
  options: { highWaterMark?: number; fanOutBatch?: number } = {},
): Promise<{ pub: ZmtpPublishServer; address: string }> {
  const pub = new ZmtpPublishServer(options);
  const address = `tcp://127.0.0.1:${await freePort()}`;
  await pub.bind(address);
  closers.push(() => pub.close());
  return { pub, address };
}

/** Publishes `frames` until `peer` holds `count` messages: a subscription travels after the handshake. */
async function publishUntil(pub: ZmtpPublishServer, frames: Buffer[], peer: RawPeer, count: number): Promise<void> {
  await peer.until(() => {
    if (peer.messages.length < count) void pub.publish(frames);
    return peer.messages.length >= count;
  }, `${count} publications`);
}

describe('ZmtpPublishServer', () => {
  it('filters by prefix, with subscriptions as ZMTP 3.1 commands and as ZMTP 3.0 messages, and cancels them', async () => {
    const { pub, address } = await publisher();
    const v31 = new RawPeer(address, Buffer.concat([greeting(1), readyCommand('SUB'), zmtpCommand('SUBSCRIBE', Buffer.from('web'))]));
    const v30 = new RawPeer(address, Buffer.concat([greeting(0), readyCommand('SUB'), encodeMessage([Buffer.from('\x01db', 'latin1')])]));
    await publishUntil(pub, [Buffer.from('web1'), Buffer.from('job')], v31, 1);
    await publishUntil(pub, [Buffer.from('db1'), Buffer.from('job')], v30, 1);
    const web = v31.messages.length;
    const db = v30.messages.length;
    await pub.publish([Buffer.from('mail1'), Buffer.from('for nobody')]);
    // Cancelled, each in its own form; a marker subscription tells when the change has arrived.
    v31.socket.write(Buffer.concat([zmtpCommand('CANCEL', Buffer.from('web')), zmtpCommand('SUBSCRIBE', Buffer.from('mark'))]));
    v30.socket.write(Buffer.concat([encodeMessage([Buffer.from('\x00db', 'latin1')]), encodeMessage([Buffer.from('\x01mark', 'latin1')])]));
    await publishUntil(pub, [Buffer.from('mark'), Buffer.from('x')], v31, web + 1);
    await publishUntil(pub, [Buffer.from('mark'), Buffer.from('x')], v30, db + 1);
    const before = [v31.messages.length, v30.messages.length];
    await pub.publish([Buffer.from('web2'), Buffer.from('after cancel')]);
    await pub.publish([Buffer.from('db2'), Buffer.from('after cancel')]);
    await pub.publish([Buffer.from('mark'), Buffer.from('last')]);
    await v31.until(() => v31.messages.length === before[0] + 1 && v30.messages.length === before[1] + 1, 'the last mark');
    const topics = (p: RawPeer) => p.messages.map((m) => m[0].toString());
    expect(new Set(topics(v31))).toEqual(new Set(['web1', 'mark']));
    expect(new Set(topics(v30))).toEqual(new Set(['db1', 'mark']));
    expect(v31.commands.map((c) => c.name)).toEqual(['READY']);
    expect(readyOf(v31)).toBe('PUB');
  });

  it('writes to its subscribers a batch a turn, each publication after the one before: every subscriber gets them in order', async () => {
    const { pub, address } = await publisher({ fanOutBatch: 2 });
    const peers = Array.from(
      { length: 5 },
      () => new RawPeer(address, Buffer.concat([greeting(1), readyCommand('SUB'), zmtpCommand('SUBSCRIBE')])),
    );
    for (const peer of peers) await publishUntil(pub, [Buffer.from('hello')], peer, 1);
    const seen = peers.map((p) => p.messages.length);
    // Three publications at once: the second and third wait for the first's fan-out, which lets
    // the event loop turn between its batches of two.
    let turned = false;
    setImmediate(() => (turned = true));
    const sent = ['a', 'b', 'c'].map((body) => pub.publish([Buffer.from('job'), Buffer.from(body)]));
    expect(turned).toBe(false);
    await Promise.all(sent);
    expect(turned).toBe(true);
    for (const [i, peer] of peers.entries()) {
      await peer.until(() => peer.messages.length === seen[i] + 3, 'three publications');
      expect(peer.messages.slice(seen[i]).map((m) => m[1].toString())).toEqual(['a', 'b', 'c']);
    }
  });

  it('counts subscriptions to everything as libzmq does: one CANCEL of two SUBSCRIBEs keeps them coming, the second stops them', async () => {
    const { pub, address } = await publisher();
    const everything = zmtpCommand('SUBSCRIBE');
    const peer = new RawPeer(address, Buffer.concat([greeting(), readyCommand('SUB'), everything, everything]));
    await publishUntil(pub, [Buffer.from('any'), Buffer.from('job')], peer, 1);
    // Each change travels behind a marker subscription, published until it arrives.
    const step = async (commands: Buffer[], mark: string) => {
      peer.socket.write(Buffer.concat([...commands, zmtpCommand('SUBSCRIBE', Buffer.from(mark))]));
      await peer.until(() => {
        const arrived = peer.messages.some((m) => m[0].toString() === mark);
        if (!arrived) void pub.publish([Buffer.from(mark), Buffer.from('x')]);
        return arrived;
      }, mark);
    };
    await step([zmtpCommand('CANCEL')], 'mark1');
    const count = peer.messages.length;
    await pub.publish([Buffer.from('other'), Buffer.from('still subscribed once')]);
    await step([zmtpCommand('CANCEL')], 'mark2');
    await pub.publish([Buffer.from('other'), Buffer.from('after the last cancel')]);
    await step([], 'mark3');
    const after = peer.messages.slice(count).map((m) => m[1].toString());
    expect(after).toContain('still subscribed once');
    expect(after).not.toContain('after the last cancel');
  });

  it("delivers to libzmq's SUB by its prefix only, frames intact", async () => {
    const { pub, address } = await publisher();
    const sub = new zmq.Subscriber({ linger: 0 });
    closers.push(() => sub.close());
    sub.subscribe('salt');
    sub.connect(address);
    let got: Buffer[] | undefined;
    void sub.receive().then((frames) => (got = frames));
    const deadline = Date.now() + 5000;
    while (!got && Date.now() < deadline) {
      await pub.publish([Buffer.from('other'), Buffer.from('not this')]);
      await pub.publish([Buffer.from('salt/job'), Buffer.from('this'), Buffer.alloc(300, 7)]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(got?.slice(0, 2).map(String)).toEqual(['salt/job', 'this']);
    expect(got?.[2].equals(Buffer.alloc(300, 7))).toBe(true);
  });

  it('drops publications for a subscriber that does not read, at its high-water mark, and goes on serving the others', async () => {
    const { pub, address } = await publisher({ highWaterMark: 4 });
    const stalled = new RawPeer(address, Buffer.concat([greeting(), readyCommand('SUB'), zmtpCommand('SUBSCRIBE')]));
    const reader = new RawPeer(address, Buffer.concat([greeting(), readyCommand('SUB'), zmtpCommand('SUBSCRIBE')]));
    await publishUntil(pub, [Buffer.from('t'), Buffer.from('hello')], stalled, 1);
    await publishUntil(pub, [Buffer.from('t'), Buffer.from('hello')], reader, 1);
    stalled.socket.pause();
    const big = Buffer.alloc(1024 * 1024, 1);
    // Far more than the kernel's buffers hold: the stalled peer's queue reaches 4 publications.
    for (let i = 0; i < 64 && pub.dropped === 0; i++) {
      await pub.publish([Buffer.from('t'), big]);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(pub.dropped).toBeGreaterThan(0);
    // The reader may still be reading the big ones (they were not dropped for it): a small one
    // follows them once it is through.
    const served = () => reader.messages.at(-1)?.[1]?.toString() === 'still served';
    await reader.until(() => {
      if (!served()) void pub.publish([Buffer.from('t'), Buffer.from('still served')]);
      return served();
    }, 'a publication after the drops');
    expect(reader.messages.at(-1)?.map(String)).toEqual(['t', 'still served']);
  });
});

function readyOf(peer: RawPeer): string | undefined {
  const ready = peer.commands.find((c) => c.name === 'READY');
  return ready?.data.toString('latin1').slice('\x0bSocket-Type'.length + 4);
}

/** A ROUTER on a free port serving `handler` (its errors ignored), closed after the test; its address. */
async function served(handler: RequestServe, options: ConstructorParameters<typeof ZmtpRequestServer>[0] = {}): Promise<string> {
  const server = new ZmtpRequestServer(options);
  const address = `tcp://127.0.0.1:${await freePort()}`;
  await server.bind(address);
  closers.push(() => server.close());
  server.serve(handler, () => undefined);
  return address;
}

async function router(): Promise<{ server: ZmtpRequestServer; address: string; peers: Buffer[] }> {
  const server = new ZmtpRequestServer();
  const address = `tcp://127.0.0.1:${await freePort()}`;
  await server.bind(address);
  closers.push(() => server.close());
  const peers: Buffer[] = [];
  server.serve(
    async (payload, peer) => {
      peers.push(peer);
      if (payload.toString() === 'slow') await new Promise((resolve) => setTimeout(resolve, 100));
      return Buffer.concat([Buffer.from('re:'), payload]);
    },
    (err) => {
      throw err;
    },
  );
  return { server, address, peers };
}

describe('ZmtpRequestServer', () => {
  it('gives each connection its own routing id, answers on it, and drops what is not shaped as REQ sends', async () => {
    const { address, peers } = await router();
    const a = new RawPeer(address, Buffer.concat([greeting(), readyCommand('REQ')]));
    const b = new RawPeer(address, Buffer.concat([greeting(), readyCommand('DEALER')]));
    a.socket.write(encodeMessage([Buffer.from('no delimiter')]));
    a.socket.write(encodeMessage([Buffer.alloc(0), Buffer.from('one'), Buffer.from('extra frame')]));
    a.socket.write(encodeMessage([Buffer.alloc(0), Buffer.from('from a')]));
    b.socket.write(encodeMessage([Buffer.alloc(0), Buffer.from('from b')]));
    await a.until(() => a.messages.length === 1 && b.messages.length === 1, 'both replies');
    expect(a.messages[0].map(String)).toEqual(['', 're:from a']);
    expect(b.messages[0].map(String)).toEqual(['', 're:from b']);
    expect(readyOf(a)).toBe('ROUTER');
    expect(peers).toHaveLength(2);
    expect(peers[0].equals(peers[1])).toBe(false);
  });

  // Found by the fuzz campaign: an empty last frame at the end of a read was taken from no bytes.
  it('answers an empty request with an empty reply, both ending their reads', async () => {
    const seen: number[] = [];
    const address = await served(async (payload) => {
      seen.push(payload.length);
      return Buffer.alloc(0);
    });
    const client = new ZmtpRequestClient(address);
    closers.push(() => client.close());
    expect((await client.request(Buffer.alloc(0), 5000)).length).toBe(0);
    expect((await client.request(Buffer.alloc(0), 5000)).length).toBe(0);
    expect(seen).toEqual([0, 0]);
  });

  it('drops the reply to a connection that has gone, and answers the next one', async () => {
    const { address, peers } = await router();
    const gone = new RawPeer(
      address,
      Buffer.concat([greeting(), readyCommand('REQ'), encodeMessage([Buffer.alloc(0), Buffer.from('slow')])]),
    );
    await gone.until(() => peers.length === 1, 'the request');
    gone.socket.destroy();
    const client = new ZmtpRequestClient(address);
    closers.push(() => client.close());
    expect(String(await client.request(Buffer.from('next'), 5000))).toBe('re:next');
  });

  // The master's sign-in queue asks this before spending RSA work on a sign-in that waited.
  it('tells the handler whether the connection a request came on is still open', async () => {
    const asks: Array<() => boolean> = [];
    const address = await served(async (_payload, _peer, connected) => {
      asks.push(connected!);
      return new Promise<Buffer | null>(() => undefined); // never answered
    });
    const peer = new RawPeer(address, Buffer.concat([greeting(), readyCommand('REQ'), encodeMessage([Buffer.alloc(0), Buffer.from('x')])]));
    await peer.until(() => asks.length === 1, 'the request');
    expect(asks[0]()).toBe(true);
    peer.socket.destroy();
    await peer.until(() => !asks[0](), 'the server to see the connection gone');
  });

  it('answers a request over maxRequestBytes as told, without handing it on, and reads the next one', async () => {
    const seen: number[] = [];
    const address = await served(
      async (payload) => {
        seen.push(payload.length);
        return Buffer.concat([Buffer.from('re:'), payload]);
      },
      { maxRequestBytes: 1024, oversized: (bytes) => Buffer.from(`too big: ${bytes}`) },
    );
    const client = new ZmtpRequestClient(address);
    closers.push(() => client.close());
    expect(String(await client.request(Buffer.alloc(300_000, 1), 5000))).toBe('too big: 300000');
    expect(String(await client.request(Buffer.from('small'), 5000))).toBe('re:small');
    expect(seen).toEqual([5]);
    // Not shaped as a request (no delimiter ahead of it): no one to answer, the peer is cut off.
    const odd = new RawPeer(address, Buffer.concat([greeting(), readyCommand('DEALER'), encodeMessage([Buffer.alloc(5000)])]));
    await odd.until(() => odd.closed, 'the peer cut off');
    expect(odd.messages).toEqual([]);
  });

  it('cuts off a peer that sends requests and leaves their replies unread, and serves the others', async () => {
    const address = await served(async () => Buffer.alloc(1024 * 1024, 1), { maxUnreadBytes: 4 * 1024 * 1024 });
    const greedy = new RawPeer(address, Buffer.concat([greeting(), readyCommand('DEALER')]));
    greedy.socket.pause();
    const request = encodeMessage([Buffer.alloc(0), Buffer.from('more')]);
    // Far more replies than the kernel's buffers and the 4 MiB hold.
    for (let i = 0; i < 200 && !greedy.closed; i++) {
      greedy.socket.write(request);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await greedy.until(() => greedy.closed, 'the greedy peer to be cut off');
    const client = new ZmtpRequestClient(address);
    closers.push(() => client.close());
    expect((await client.request(Buffer.from('one'), 5000)).length).toBe(1024 * 1024);
  });

  it('refuses a peer of a socket type a ROUTER does not talk to with an ERROR command, and closes it', async () => {
    const { address } = await router();
    const pub = new RawPeer(address, Buffer.concat([greeting(), readyCommand('PUB')]));
    await pub.until(() => pub.closed, 'the connection to close');
    // Our READY goes with the greeting, as libzmq's does; the peer's type is known from its READY.
    expect(pub.commands.map((c) => c.name)).toEqual(['READY', 'ERROR']);
    expect(pub.commands[1].data.toString('latin1', 1)).toBe('invalid socket type PUB');
  });

  it('survives any bytes: 200 connections of seeded garbage and broken ZMTP, then answers a real client', async () => {
    const { address } = await router();
    const r = seeded(15);
    const valid = Buffer.concat([greeting(), readyCommand('REQ')]);
    const peers: RawPeer[] = [];
    for (let i = 0; i < 200; i++) {
      const bytes = brokenZmtp(r, valid, i);
      peers.push(new RawPeer(address, bytes));
    }
    await peers[0].until(() => peers.filter((p, i) => i % 4 !== 3).every((p) => p.closed), 'the broken peers to be dropped');
    const client = new ZmtpRequestClient(address);
    closers.push(() => client.close());
    expect(String(await client.request(Buffer.from('still here'), 5000))).toBe('re:still here');
  });
});

describe('ZmtpReader', () => {
  it('lets the bytes of a frame over its limit go as they come, then reads on in step', () => {
    const seen: string[] = [];
    const reader = new ZmtpReader(
      {
        command: () => undefined,
        message: (frames) => seen.push(`message ${frames.map(String).join('|')}`),
        oversized: (before, bytes) => seen.push(`oversized ${bytes} after ${before.length} frame(s)`),
      },
      1024,
    );
    reader.push(greeting());
    const size = 64 * 1024 * 1024;
    const head = Buffer.alloc(9);
    head[0] = 0x02; // LONG, last frame
    head.writeBigUInt64BE(BigInt(size), 1);
    // What it holds of the reads (private: what this test is about).
    const held = (reader as unknown as { input: { length: number } }).input;
    // The delimiter frame as REQ sends it (MORE), then a 64 MiB frame in fresh 1 MiB reads.
    reader.push(Buffer.from([0x01, 0x00]));
    reader.push(head);
    for (let sent = 0; sent < size; sent += 1024 * 1024) {
      reader.push(Buffer.alloc(1024 * 1024, 7));
      expect(held.length).toBe(0);
    }
    reader.push(encodeMessage([Buffer.from('next')]));
    expect(seen).toEqual(['oversized 67108864 after 1 frame(s)', 'message next']);
  });

  it('refuses a command over its limit, and any oversized frame when no one takes them', () => {
    const command = new ZmtpReader({ command: () => undefined, message: () => undefined, oversized: () => undefined }, 16);
    command.push(greeting());
    expect(() => command.push(zmtpCommand('SUBSCRIBE', Buffer.alloc(100)))).toThrow(/more than the 16 taken/);
    const plain = new ZmtpReader({ command: () => undefined, message: () => undefined }, 16);
    plain.push(greeting());
    expect(() => plain.push(encodeMessage([Buffer.alloc(100)]))).toThrow(/more than the 16 taken/);
  });
});

describe('ZmtpPort', () => {
  // On Linux libuv hides EMFILE itself (open-files.ts warns before it); other accept errors
  // (ENOBUFS, ENOMEM) reach Node as the listener's 'error', which used to be swallowed.
  it('reports connections its listener failed to accept: the first at once, then with their count', async () => {
    const warnings: Array<{ code: string; message: string; hint?: string }> = [];
    const port = new ZmtpPort({
      socketType: 'ROUTER',
      peerTypes: new Set(['REQ']),
      onMessage: () => undefined,
      onWarning: (err) => warnings.push(err),
    });
    const address = `tcp://127.0.0.1:${await freePort()}`;
    await port.bind(address, 'for requests');
    closers.push(() => port.close());
    const listener = (port as unknown as { servers: Server[] }).servers[0];
    const failure = (code: string) => Object.assign(new Error(`accept ${code}`), { code });
    listener.emit('error', failure('EMFILE'));
    listener.emit('error', failure('ENOBUFS'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      code: 'ACCEPT',
      message: `cannot accept connections for requests on ${address}: accept EMFILE (1 refused since the last report)`,
    });
    expect(warnings[0].hint).toMatch(/raise the process's open files limit/);
  });

  it('drops a connection whose handshake is not done in time (ZMQ_HANDSHAKE_IVL)', async () => {
    const port = new ZmtpPort({ socketType: 'ROUTER', peerTypes: new Set(['REQ']), handshakeMs: 100, onMessage: () => undefined });
    const address = `tcp://127.0.0.1:${await freePort()}`;
    await port.bind(address, 'for requests');
    closers.push(() => port.close());
    const silent = new RawPeer(address, greeting().subarray(0, 10));
    const started = Date.now();
    await silent.until(() => silent.closed, 'the silent peer to be dropped');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('replaces an ipc:// socket file left by an earlier run, and removes it on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'brine-zmtp-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'publish_pull.ipc');
    writeFileSync(path, 'left over');
    const server = new ZmtpRequestServer();
    await server.bind(`ipc://${path}`);
    server.serve(
      async (payload) => payload,
      () => undefined,
    );
    const client = new ZmtpRequestClient(`ipc://${path}`);
    expect(String(await client.request(Buffer.from('over ipc'), 5000))).toBe('over ipc');
    client.close();
    await server.close();
    expect(existsSync(path)).toBe(false);
  });

  it('says which address it cannot listen on, and why', async () => {
    const server = new ZmtpRequestServer();
    closers.push(() => server.close());
    await expect(server.bind('tcp://nowhere')).rejects.toMatchObject({ code: 'TRANSPORT', hint: 'give tcp://HOST:PORT or ipc://PATH' });
    await expect(server.bind('tcp://203.0.113.9:1')).rejects.toMatchObject({
      code: 'TRANSPORT',
      message: expect.stringMatching(/EADDRNOTAVAIL/),
    });
  });
});
