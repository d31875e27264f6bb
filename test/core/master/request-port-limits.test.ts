/**
 * The request port answers every request, and what one request can cost is bounded: its size, the
 * size of each field that is logged or stored, and lookups of names a peer chose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '../../../src/core/protocol/msgpack';
import { generateKeyPair } from '../../../src/core/crypto/rsa';
import { MasterHarness, RawMinion, rawRequest } from '../../support/master-harness';

const PUB = generateKeyPair(1024).publicPem;
const NONCE = 'a'.repeat(32);

function authFrame(id: string, extra: Record<string, unknown> = {}): Buffer {
  return encode({
    enc: 'clear',
    load: { cmd: '_auth', id, nonce: NONCE, enc_algo: 'OAEP-SHA1', sig_algo: 'PKCS1v15-SHA1', pub: PUB, ...extra },
    version: 3,
  });
}

describe('request size and field limits', () => {
  let h: MasterHarness;
  beforeAll(async () => {
    h = await MasterHarness.start({ max_request_size: 64 * 1024 });
  });
  afterAll(async () => h.stop());

  it('answers a request above max_request_size with "bad load" before decoding it', async () => {
    expect(await rawRequest(h.address, authFrame('x'.repeat(100_000)))).toBe('bad load');
    expect(h.log).toMatch(/Dropped a request of \d+ bytes, more than max_request_size \(65536\)/);
    expect(h.log).not.toContain('x'.repeat(300));
  });

  it('answers an id longer than 255 bytes with "bad load" and writes no file', async () => {
    expect(await rawRequest(h.address, authFrame('y'.repeat(300)))).toBe('bad load');
    expect(await rawRequest(h.address, authFrame('é'.repeat(128)))).toBe('bad load');
    expect(readdirSync(join(h.settings.pki_dir, 'minions_pre'))).toEqual([]);
    expect(h.log).toMatch(/at most 255 bytes, this one has 300/);
    expect(h.log).not.toContain('y'.repeat(256));
  });

  it('answers a cmd that is a 64-bit integer above 2^53 with "bad load"', async () => {
    expect(await rawRequest(h.address, encode({ enc: 'clear', load: { cmd: 2n ** 60n + 1n }, version: 3 }))).toBe('bad load');
    expect(await rawRequest(h.address, encode({ enc: 'clear', load: { cmd: 2n ** 63n }, version: 3 }))).toBe('bad load');
  });

  it('answers an absurd public key with "bad load"', async () => {
    expect(await rawRequest(h.address, authFrame('web9', { pub: 'A'.repeat(40_000) }))).toBe('bad load');
  });
});

describe('requests of an accepted minion', () => {
  let h: MasterHarness;
  let minion: RawMinion;
  beforeAll(async () => {
    h = await MasterHarness.start({ auto_accept: true });
    mkdirSync(join(h.root, 'srv'), { recursive: true });
    writeFileSync(join(h.root, 'srv', 'top.sls'), 'base: {}\n');
    minion = new RawMinion('web1', h.address);
    expect(await minion.signIn()).toBe('accepted');
  });
  afterAll(async () => h.stop());

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'looks up saltenv %s among its own environments only',
    async (saltenv) => {
      expect(await minion.send({ cmd: '_file_list', saltenv, prefix: '' })).toEqual([]);
      expect(await minion.send({ cmd: '_serve_file', path: 'top.sls', loc: 0, saltenv })).toEqual({ data: '', dest: '' });
    },
  );

  it('answers loc 1e300 with "bad load" and keeps serving', async () => {
    await expect(minion.send({ cmd: '_serve_file', path: 'top.sls', loc: 1e300, saltenv: 'base' })).rejects.toMatchObject({
      code: 'MASTER_BAD_LOAD',
    });
    expect(await minion.send({ cmd: '_file_list', saltenv: 'base', prefix: '' })).toEqual(['top.sls']);
  });

  it('answers a glob target too large to compile with an error naming the target, not silence', async () => {
    const load = {
      cmd: 'publish',
      tgt: '*a['.repeat(40_000),
      fun: 'test.ping',
      arg: [],
      key: h.rootKey(),
      tgt_type: 'glob',
      ret: '',
      jid: '',
      kwargs: {},
      user: 'root',
    };
    const reply = (await rawRequest(h.address, encode({ enc: 'clear', load, version: 3 }))) as { load: { jid: unknown; error: string } };
    expect(reply.load.jid).toBeNull();
    expect(reply.load.error).toMatch(/too large to match/);
  });

  it('answers an unknown clear command with "bad load" and logs it escaped', async () => {
    expect(await rawRequest(h.address, encode({ enc: 'clear', load: { cmd: '\u001b[2Jx\r\n' }, version: 3 }))).toBe('bad load');
    expect(h.log).toContain('unknown command \\x1b[2Jx\\r\\n refused');
  });
});
