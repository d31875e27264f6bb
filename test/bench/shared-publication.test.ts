import { describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { sharedPublicationOpener } from '../../bench/shared-publication';
import { buildPublication, openPublication } from '../../src/core/channel';
import { Crypticle } from '../../src/core/crypto/crypticle';
import { CryptoError } from '../../src/core/errors';
import { keyPem } from '../core/protocol/wire-vectors';

const masterPem = keyPem('master.pem');
const key = Crypticle.generateKeyString();
const job = { fun: 'test.ping', arg: [], jid: '20261207220000123456', tgt: '*', tgt_type: 'glob', ret: '', user: 'root' };
/** What each simulated minion holds: its own Crypticle and KeyObject of the same keys. */
const minionKeys = () => ({ aes: new Crypticle(key), master: createPublicKey(createPrivateKey(masterPem)) });

describe('the simulator opening a publication once for its minions', () => {
  it('hands every minion the job its own opening gives, opened once', () => {
    const open = sharedPublicationOpener();
    const bytes = buildPublication(new Crypticle(key), masterPem, job);
    const own = minionKeys();
    const expected = openPublication(bytes, own.aes, own.master);
    const jobs = [1, 2, 3].map(() => {
      const k = minionKeys();
      // Each minion's copy of the bytes, as each reads them from its own connection.
      return open(Buffer.from(bytes), k.aes, k.master);
    });
    for (const j of jobs) expect(j).toEqual(expected);
    expect(open.opened()).toBe(1);
    expect(open.reused()).toBe(2);
  });

  it('opens other bytes, another publish key or an unsigned check again', () => {
    const open = sharedPublicationOpener();
    const k = minionKeys();
    open(buildPublication(k.aes, masterPem, job), k.aes, k.master);
    open(buildPublication(k.aes, masterPem, { ...job, jid: '20261207220000123457' }), k.aes, k.master);
    const other = new Crypticle(Crypticle.generateKeyString());
    const sealedOther = buildPublication(other, masterPem, job);
    expect(open(sealedOther, other, k.master).jid).toBe(job.jid);
    expect(open(sealedOther, other, null).jid).toBe(job.jid);
    expect(open.opened()).toBe(4);
    expect(open.reused()).toBe(0);
  });

  it('lets each minion fail as its own opening would: a stale key, a bad signature', () => {
    const open = sharedPublicationOpener();
    const k = minionKeys();
    const bytes = buildPublication(k.aes, masterPem, job);
    open(bytes, k.aes, k.master);
    const stale = new Crypticle(Crypticle.generateKeyString());
    expect(() => open(bytes, stale, k.master)).toThrow(CryptoError);
    const forged = buildPublication(k.aes, keyPem('web1.pem'), job);
    expect(() => open(forged, k.aes, k.master)).toThrow(/signature does not verify/);
  });

  it('gives a job no minion can change for the others', () => {
    const open = sharedPublicationOpener();
    const k = minionKeys();
    const opened = open(buildPublication(k.aes, masterPem, { ...job, arg: ['a', { kw: 1 }] }), k.aes, k.master);
    expect(() => {
      (opened as Record<string, unknown>).fun = 'cmd.run';
    }).toThrow(TypeError);
    expect(() => (opened.arg as unknown[]).push('b')).toThrow(TypeError);
  });
});
