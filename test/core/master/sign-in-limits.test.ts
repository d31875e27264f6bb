/** max_pending_keys, auth_rate_limit and connection_rate_limit: what unauthenticated sign-ins may cost the master. */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildAuthRequest, openAuthReply } from '../../../src/core/channel';
import { generateKeyPair } from '../../../src/core/crypto/rsa';
import { createLogging } from '../../../src/core/log';
import { decode } from '../../../src/core/protocol/msgpack';
import * as zmq from 'zeromq';
import { ConnectionRateLimit, PendingKeyCap, SignInRateLimit } from '../../../src/core/master/sign-in-limits';
import { RequestClient } from '../../../src/core/transport/zeromq';
import { MasterHarness, rawExchange } from '../../support/master-harness';

const keys = generateKeyPair(1024);
let h: MasterHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('worker_threads', () => {
  it.each([0, -2, 1.5, 'four'])('refuses %j with one line naming the option, before taking the ports', async (value) => {
    await expect(MasterHarness.start({ worker_threads: value as number })).rejects.toMatchObject({
      code: 'BAD_CONFIG',
      message: `worker_threads must be a whole number > 0, got ${JSON.stringify(value)}`,
    });
  });
});

describe('max_pending_keys', () => {
  it('answers new ids beyond the cap "pending" without a file, and logs the refusals once with a count', async () => {
    h = await MasterHarness.start({ max_pending_keys: 3 });
    const kinds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { bytes, nonce } = buildAuthRequest({ id: `random-${i}`, publicPem: keys.publicPem });
      kinds.push(openAuthReply(await rawExchange(h.address, bytes), null, keys.privatePem, nonce).kind);
    }
    expect(kinds).toEqual(Array(10).fill('pending'));
    expect(readdirSync(join(h.settings.pki_dir, 'minions_pre')).sort()).toEqual(['random-0', 'random-1', 'random-2']);
    expect(h.log.match(/max_pending_keys \(3\) keys are waiting/g)).toHaveLength(1);
    // A known pending id is still answered from its file.
    const again = buildAuthRequest({ id: 'random-1', publicPem: keys.publicPem });
    expect(openAuthReply(await rawExchange(h.address, again.bytes), null, keys.privatePem, again.nonce).kind).toBe('pending');
  });

  it('logs again after a minute with the count since the last report', () => {
    const lines: string[] = [];
    const log = createLogging({ level: 'info', console: true, stderr: { write: (t: string) => lines.push(t) } }).getLogger('salt.master');
    let now = 0;
    const cap = new PendingKeyCap(1, log, () => now);
    expect(cap.allows(0)).toBe(true);
    for (let i = 0; i < 5; i++) expect(cap.allows(1)).toBe(false);
    now = 61_000;
    expect(cap.allows(1)).toBe(false);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('the keys of 1 new minion(s)');
    expect(lines[1]).toContain('the keys of 5 new minion(s)');
  });
});

describe('auth_rate_limit', () => {
  it('counts _auth requests per connection in one-second windows', () => {
    let now = 5_000;
    const limit = new SignInRateLimit(2, () => now);
    const a = Buffer.from('a');
    const b = Buffer.from('b');
    expect([limit.allow(a), limit.allow(a), limit.allow(a), limit.allow(b)]).toEqual([true, true, false, true]);
    now = 6_000;
    expect(limit.allow(a)).toBe(true);
  });

  it('answers a connection that signs in too often with "bad load"', async () => {
    h = await MasterHarness.start({ auth_rate_limit: 2 });
    const client = new RequestClient(h.address);
    try {
      const replies: unknown[] = [];
      for (let i = 0; i < 20; i++) {
        const { bytes } = buildAuthRequest({ id: 'flood', publicPem: keys.publicPem });
        replies.push(decode(await client.request(bytes, 10_000)));
      }
      expect(replies.filter((r) => r === 'bad load').length).toBeGreaterThan(0);
      expect(h.log).toContain('more than auth_rate_limit (2) _auth requests per second on one connection');
    } finally {
      client.close();
    }
  });
});

describe('connection_rate_limit', () => {
  it('counts new connections per address in one-second windows and logs refusals once a minute with a count', () => {
    const lines: string[] = [];
    const log = createLogging({ level: 'info', console: true, stderr: { write: (t: string) => lines.push(t) } }).getLogger('salt.master');
    let now = 5_000;
    const limit = new ConnectionRateLimit(2, log, () => now);
    expect(['10.0.0.1', '10.0.0.1', '10.0.0.1', '10.0.0.2'].map((a) => limit.allow(a))).toEqual([true, true, false, true]);
    expect(limit.allow('10.0.0.1')).toBe(false);
    now = 6_000;
    expect(limit.allow('10.0.0.1')).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Refused 1 connection(s)');
    expect(lines[0]).toContain('(last: 10.0.0.1)');
    now = 66_000;
    limit.allow('10.0.0.1');
    limit.allow('10.0.0.1');
    expect(limit.allow('10.0.0.1')).toBe(false);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('Refused 2 connection(s)');
  });

  it('refuses connections from one address beyond the limit at the handshake; the address gets in again later', async () => {
    h = await MasterHarness.start({ connection_rate_limit: 2 });
    // Twelve connections from 127.0.0.1 at once: each one's handshake either passes or is refused
    // by the master's ZAP handler; wait for every outcome (events, not time).
    const sockets = Array.from({ length: 12 }, () => new zmq.Request({ linger: 0 }));
    try {
      const outcomes = sockets.map(async (sock) => {
        for await (const event of sock.events) {
          if (event.type === 'handshake') return 'admitted';
          if (event.type === 'handshake:error:auth') return 'refused';
        }
        return 'closed';
      });
      sockets.forEach((sock) => sock.connect(h!.address));
      const seen = await Promise.all(outcomes);
      expect(seen.filter((o) => o === 'refused').length).toBeGreaterThan(0);
      expect(seen.filter((o) => o === 'admitted').length).toBeGreaterThan(0);
      expect(h.log).toContain('more than connection_rate_limit (2) new connections per second from one address (last: 127.0.0.1)');
    } finally {
      sockets.forEach((sock) => sock.close());
    }
    // A later connection is admitted once the second has passed: retry on a timeout, as a minion does.
    const client = new RequestClient(h.address);
    try {
      let reply: unknown;
      for (let attempt = 0; reply === undefined && attempt < 30; attempt++) {
        reply = await client.request(Buffer.from('not msgpack'), 500).then(decode, () => undefined);
      }
      expect(reply).toBe('bad load');
    } finally {
      client.close();
    }
  });
});
