/**
 * The ZMTP request client against peers written here byte by byte: what it sends, what it takes,
 * and what it refuses. Its work against libzmq's server is in transport.test.ts; against Salt's
 * master in test/interop/brine-minion-salt-master.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { TransportError } from '../../../src/core/errors';
import { ZmtpRequestClient, zmtpFrame } from '../../../src/core/transport/zmtp-request';
import { seeded } from '../../fuzz/frames';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server's greeting: version 3.1 unless told, mechanism NULL unless told, as-server set. */
function greeting(opts: { major?: number; mechanism?: string } = {}): Buffer {
  const g = Buffer.alloc(64);
  g[0] = 0xff;
  g[8] = 1;
  g[9] = 0x7f;
  g[10] = opts.major ?? 3;
  g[11] = 1;
  g.write(opts.mechanism ?? 'NULL', 12, 'latin1');
  g[32] = 1;
  return g;
}

function command(name: string, data: Buffer = Buffer.alloc(0)): Buffer {
  return zmtpFrame(0x04, Buffer.concat([Buffer.from([name.length]), Buffer.from(name, 'latin1'), data]));
}

function ready(socketType: string): Buffer {
  const name = Buffer.from('Socket-Type');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(socketType.length);
  return command('READY', Buffer.concat([Buffer.from([name.length]), name, len, Buffer.from(socketType)]));
}

/** A REQ's reply: the empty delimiter, then the body. */
function reply(body: Buffer): Buffer {
  return Buffer.concat([zmtpFrame(0x01, Buffer.alloc(0)), zmtpFrame(0, body)]);
}

/**
 * What a connection sent, parsed as far as it goes: the greeting, then frames. `requests` are
 * the bodies of complete two-frame REQ messages.
 */
class Seen {
  bytes = Buffer.alloc(0);

  get greeting(): Buffer | undefined {
    return this.bytes.length >= 64 ? this.bytes.subarray(0, 64) : undefined;
  }

  frames(): Array<{ flags: number; body: Buffer }> {
    const out: Array<{ flags: number; body: Buffer }> = [];
    let at = 64;
    while (at + 2 <= this.bytes.length) {
      const flags = this.bytes[at];
      const long = (flags & 0x02) !== 0;
      const size = long ? Number(this.bytes.readBigUInt64BE(at + 1)) : this.bytes[at + 1];
      const start = at + (long ? 9 : 2);
      if (start + size > this.bytes.length) break;
      out.push({ flags, body: this.bytes.subarray(start, start + size) });
      at = start + size;
    }
    return out;
  }

  requests(): string[] {
    const frames = this.frames().filter((f) => (f.flags & 0x04) === 0);
    const out: string[] = [];
    for (let i = 0; i + 1 < frames.length; i += 2) out.push(String(frames[i + 1].body));
    return out;
  }
}

/** A peer on a free port (or `port`): `onConnection` scripts each connection; resolves once it listens. */
async function peer(
  onConnection: (socket: Socket, seen: Seen) => void,
  port = 0,
): Promise<{ address: string; connections: Seen[]; server: Server }> {
  const connections: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const seen = new Seen();
    connections.push(seen);
    socket.on('data', (chunk: Buffer) => {
      seen.bytes = Buffer.concat([seen.bytes, chunk]);
    });
    onConnection(socket, seen);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { address: `tcp://127.0.0.1:${(server.address() as { port: number }).port}`, connections, server };
}

function client(address: string): ZmtpRequestClient {
  const c = new ZmtpRequestClient(address, { reconnectInterval: 20 });
  closers.push(() => c.close());
  return c;
}

/** Calls `answer` with each request body as it completes on this connection; writes what it returns. */
function serveRequests(socket: Socket, seen: Seen, answer: (body: string, n: number) => Buffer | null): void {
  let answered = 0;
  socket.on('data', () => {
    const requests = seen.requests();
    while (answered < requests.length) {
      const out = answer(requests[answered], answered);
      answered++;
      if (out) socket.write(out);
    }
  });
}

/** A well-behaved ROUTER: greeting and READY, then each request answered by `answer`. */
function router(answer: (body: string, n: number) => Buffer | null) {
  return (socket: Socket, seen: Seen) => {
    socket.write(Buffer.concat([greeting(), ready('ROUTER')]));
    serveRequests(socket, seen, answer);
  };
}

describe('ZmtpRequestClient', () => {
  it('greets as a ZMTP 3.1 REQ with the NULL mechanism and sends each request behind an empty delimiter', async () => {
    const p = await peer(router((body) => reply(Buffer.from(`re:${body}`))));
    const c = client(p.address);
    expect(String(await c.request(Buffer.from('one'), 5000))).toBe('re:one');
    expect(String(await c.request(Buffer.from('two'), 5000))).toBe('re:two');
    expect(p.connections).toHaveLength(1);
    const seen = p.connections[0];
    const g = seen.greeting!;
    expect([g[0], g[9], g[10], g[11]]).toEqual([0xff, 0x7f, 3, 1]);
    expect(g.toString('latin1', 12, 16)).toBe('NULL');
    expect(g[32]).toBe(0); // not the server
    const frames = seen.frames();
    expect(frames[0].flags).toBe(0x04);
    expect(frames[0].body.toString('latin1')).toContain('READY');
    expect(frames[0].body.toString('latin1')).toContain('Socket-Type');
    expect(frames[0].body.toString('latin1').endsWith('REQ')).toBe(true);
    expect(frames.slice(1).map((f) => [f.flags, String(f.body)])).toEqual([
      [0x01, ''],
      [0x00, 'one'],
      [0x01, ''],
      [0x00, 'two'],
    ]);
  });

  it('reads a reply that arrives a byte at a time, and one with a long (8-byte) size', async () => {
    const big = Buffer.alloc(70_000, 7);
    const p = await peer((socket, seen) => {
      const bytes = Buffer.concat([greeting(), ready('ROUTER')]);
      for (let i = 0; i < bytes.length; i++) socket.write(bytes.subarray(i, i + 1));
      serveRequests(socket, seen, (body) => {
        const out = reply(body === 'big' ? big : Buffer.from('small'));
        if (body === 'big') return out;
        for (let i = 0; i < out.length; i++) socket.write(out.subarray(i, i + 1));
        return null;
      });
    });
    const c = client(p.address);
    expect(String(await c.request(Buffer.from('small'), 5000))).toBe('small');
    expect((await c.request(Buffer.from('big'), 5000)).equals(big)).toBe(true);
  });

  it('answers a heartbeat PING with a PONG carrying its context', async () => {
    const p = await peer((socket, seen) => {
      socket.write(Buffer.concat([greeting(), ready('ROUTER')]));
      serveRequests(socket, seen, () => {
        // PING: a TTL of 2 bytes, then the context the PONG must return.
        socket.write(command('PING', Buffer.concat([Buffer.from([0, 10]), Buffer.from('ctx-42')])));
        return null;
      });
      socket.on('data', () => {
        const pong = seen.frames().find((f) => f.flags === 0x04 && f.body.toString('latin1', 1, 5) === 'PONG');
        if (pong && !socket.writableEnded) {
          socket.write(reply(Buffer.from(`pong:${pong.body.toString('latin1', 5)}`)));
          socket.end();
        }
      });
    });
    expect(String(await client(p.address).request(Buffer.from('x'), 5000))).toBe('pong:ctx-42');
  });

  it('drops a message without the delimiter and one that comes unasked, as a REQ socket does', async () => {
    const p = await peer((socket, seen) => {
      socket.write(Buffer.concat([greeting(), ready('ROUTER'), reply(Buffer.from('unasked'))]));
      serveRequests(socket, seen, () => Buffer.concat([zmtpFrame(0, Buffer.from('no delimiter')), reply(Buffer.from('right'))]));
    });
    expect(String(await client(p.address).request(Buffer.from('x'), 5000))).toBe('right');
  });

  it('fails at once, and never resends, when the master closes the connection before replying', async () => {
    // The first connection is dropped as its request arrives; later ones are answered.
    const p = await peer((socket, seen) => {
      const first = p.connections.length === 1;
      router((body) => {
        if (first) socket.destroy();
        return first ? null : reply(Buffer.from(`re:${body}`));
      })(socket, seen);
    });
    const c = client(p.address);
    const started = Date.now();
    await expect(c.request(Buffer.from('once'), 10_000)).rejects.toMatchObject({
      code: 'TRANSPORT',
      message: expect.stringMatching(/closed the connection before it replied/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(String(await c.request(Buffer.from('next'), 5000))).toBe('re:next');
    expect(p.connections.map((seen) => seen.requests())).toEqual([['once'], ['next']]);
  });

  it('takes no late reply for the next request after a timeout: that request goes on a new connection', async () => {
    const p = await peer(router((body) => (body === 'slow' ? null : reply(Buffer.from(`re:${body}`)))));
    const c = client(p.address);
    await expect(c.request(Buffer.from('slow'), 100)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(String(await c.request(Buffer.from('next'), 5000))).toBe('re:next');
    expect(p.connections).toHaveLength(2);
    expect(p.connections[1].requests()).toEqual(['next']);
  });

  /** A master that has not taken its connections yet: TCP connected, its greeting held until `take()`. */
  async function busyMaster(answer: (body: string) => Buffer | null) {
    const waiting: Array<() => void> = [];
    const p = await peer((socket, seen) => {
      serveRequests(socket, seen, (body) => answer(body));
      waiting.push(() => socket.write(Buffer.concat([greeting(), ready('ROUTER')])));
    });
    const take = () => {
      for (const greet of waiting.splice(0)) greet();
    };
    return { ...p, take };
  }

  /** Lets the event loop turn until `check` holds (at most 5,000 turns). */
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 5000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
    expect(check()).toBe(true);
  };

  describe('a request that times out before the master took its connection', () => {
    const echo = (body: string): Buffer | null => reply(Buffer.from(`re:${body}`));

    /** A master that has not taken its connections, and a client whose request `body` timed out there. */
    async function timedOut(body: string, answer = echo) {
      const p = await busyMaster(answer);
      const c = client(p.address);
      await expect(c.request(Buffer.from(body), 100)).rejects.toMatchObject({ code: 'TIMEOUT' });
      return { p, c };
    }

    it('keeps the connection: the same request asked again waits there for the one reply, sent once', async () => {
      const { p, c } = await timedOut('auth');
      const again = c.request(Buffer.from('auth'), 5000);
      p.take();
      expect(String(await again)).toBe('re:auth');
      expect(p.connections.map((seen) => seen.requests())).toEqual([['auth']]);
    });

    it('hands the same request asked again the reply that came while nobody waited', async () => {
      const { p, c } = await timedOut('auth');
      p.take();
      // The reply has come, with nobody waiting for it (the client's own state: nothing else shows it).
      const kept = () => (c as unknown as { connection?: { lateReply?: Buffer } }).connection?.lateReply;
      await until(() => kept() !== undefined);
      expect(String(await c.request(Buffer.from('auth'), 5000))).toBe('re:auth');
      expect(String(await c.request(Buffer.from('next'), 5000))).toBe('re:next');
      expect(p.connections.map((seen) => seen.requests())).toEqual([['auth', 'next']]);
    });

    it('sends a different next request in its place, the timed-out one never', async () => {
      const { p, c } = await timedOut('first');
      const second = c.request(Buffer.from('second'), 5000);
      p.take();
      expect(String(await second)).toBe('re:second');
      expect(p.connections.map((seen) => seen.requests())).toEqual([['second']]);
    });

    it('takes no late reply for a different request once the kept one went out unanswered: that goes on a new connection', async () => {
      const { p, c } = await timedOut('slow', (body) => (body === 'slow' ? null : echo(body)));
      p.take();
      await until(() => p.connections[0].requests().length === 1);
      const next = c.request(Buffer.from('next'), 5000);
      await until(() => p.connections.length === 2);
      p.take();
      expect(String(await next)).toBe('re:next');
      expect(p.connections.map((seen) => seen.requests())).toEqual([['slow'], ['next']]);
    });
  });

  it('keeps trying to connect until the master listens, within the request time', async () => {
    const probe = await peer(() => undefined);
    await new Promise((resolve) => probe.server.close(resolve));
    const answered = client(probe.address).request(Buffer.from('early'), 5000);
    await peer(
      router((body) => reply(Buffer.from(`re:${body}`))),
      Number(probe.address.split(':')[2]),
    );
    expect(String(await answered)).toBe('re:early');
  });

  it('says why it timed out when nobody listens', async () => {
    const probe = await peer(() => undefined);
    await new Promise((resolve) => probe.server.close(resolve));
    const err = await client(probe.address)
      .request(Buffer.from('x'), 150)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/within 150 ms \(cannot reach .*ECONNREFUSED\)/) });
  });

  describe('refuses what is not a master request port, naming it, and survives it', () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['an HTTP server', Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'), /no ZMTP signature/],
      ['a ZMTP 2 peer', greeting({ major: 1 }), /ZMTP 1\.x; version 3 or later/],
      ['a CURVE peer', greeting({ mechanism: 'CURVE' }), /CURVE mechanism/],
      ['a PUB socket', Buffer.concat([greeting(), ready('PUB')]), /a PUB, not a REP or ROUTER/],
      ['a peer with no socket type', Buffer.concat([greeting(), command('READY')]), /socket of no type/],
      ['a frame with reserved flags', Buffer.concat([greeting(), ready('ROUTER'), Buffer.from([0x40, 0])]), /reserved flag bits/],
      [
        'a frame claiming 2^60 bytes',
        Buffer.concat([greeting(), ready('ROUTER'), Buffer.from([0x02, 0x10, 0, 0, 0, 0, 0, 0, 0])]),
        /more than the 268435456 taken/,
      ],
      ['a READY property past its end', Buffer.concat([greeting(), command('READY', Buffer.from([11, 0x41]))]), /runs past its command/],
      ['a message before READY', Buffer.concat([greeting(), zmtpFrame(0, Buffer.from('hi'))]), /message before READY/],
    ];
    it.each(cases)('%s', async (_what, bytes, message) => {
      const p = await peer((socket) => socket.write(bytes));
      const c = client(p.address);
      await expect(c.request(Buffer.from('x'), 5000)).rejects.toMatchObject({ code: 'TRANSPORT', message });
    });

    it('an ERROR command, with its reason', async () => {
      const reason = Buffer.from('400');
      const p = await peer((socket) =>
        socket.write(Buffer.concat([greeting(), command('ERROR', Buffer.concat([Buffer.from([reason.length]), reason]))])),
      );
      await expect(client(p.address).request(Buffer.from('x'), 5000)).rejects.toMatchObject({
        code: 'TRANSPORT',
        message: expect.stringMatching(/refused the connection \(400\)/),
      });
    });
  });

  it('takes any bytes a peer sends (300 seeded streams): every request settles, with a reply or a TransportError', async () => {
    const r = seeded(15_2026);
    const int = (n: number) => Math.floor(r() * n);
    const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
    /** A stream: a good opening or noise, then frames of any flags and sizes, some cut short. */
    const stream = (): Buffer => {
      const parts: Buffer[] = [
        int(4) === 0 ? noise(int(80)) : Buffer.concat([greeting(), int(3) === 0 ? noise(int(40)) : ready('ROUTER')]),
      ];
      for (let i = int(6); i > 0; i--) {
        const body = noise(int(2) === 0 ? int(8) : int(600));
        const frame = zmtpFrame(int(8), body);
        parts.push(int(5) === 0 ? frame.subarray(0, int(frame.length)) : frame);
        if (int(4) === 0) parts.push(reply(body));
      }
      return Buffer.concat(parts);
    };
    const streams = Array.from({ length: 300 }, stream);
    let next = 0;
    const p = await peer((socket) => {
      const bytes = streams[next++ % streams.length];
      // Whole, or in two writes cut anywhere; then hang up or not.
      const cut = int(bytes.length + 1);
      socket.write(bytes.subarray(0, cut));
      socket.write(bytes.subarray(cut));
      if (int(2) === 0) socket.end();
    });
    const outcomes = { replied: 0, refused: 0, timedOut: 0 };
    for (let i = 0; i < streams.length; i++) {
      const c = client(p.address);
      try {
        await c.request(Buffer.from('x'), 150);
        outcomes.replied++;
      } catch (err) {
        expect(err).toBeInstanceOf(TransportError);
        if ((err as TransportError).code === 'TIMEOUT') outcomes.timedOut++;
        else outcomes.refused++;
      } finally {
        c.close();
      }
    }
    expect(outcomes.replied + outcomes.refused + outcomes.timedOut).toBe(300);
    // The streams are varied enough to reach each outcome.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.timedOut).toBeGreaterThan(0);
  });

  it('refuses an address it cannot use, with what to give', () => {
    for (const bad of ['127.0.0.1:4506', 'tcp://host', 'tcp://host:0', 'tcp://host:70000', 'udp://h:1', 'ipc://']) {
      expect(() => new ZmtpRequestClient(bad)).toThrow(
        expect.objectContaining({ code: 'TRANSPORT', hint: 'give tcp://HOST:PORT or ipc://PATH' }),
      );
    }
  });

  it('refuses requests once closed, and fails the one in flight', async () => {
    const p = await peer(router(() => null));
    const c = client(p.address);
    const inFlight = c.request(Buffer.from('x'), 5000);
    await new Promise<void>((resolve) => {
      const check = () => (p.connections[0]?.requests().length ? resolve() : setImmediate(check));
      check();
    });
    c.close();
    await expect(inFlight).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(c.request(Buffer.from('y'), 100)).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
