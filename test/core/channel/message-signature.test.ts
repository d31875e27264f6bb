/**
 * minion_sign_messages' signatures: what brine's minion signs is what Salt's master checks, and
 * brine's master takes that and both forms a Salt minion signs. The Python side's bytes come from
 * Salt 3007.10's own code (signature-vectors.ts); the whole exchange with real Salt daemons is in
 * test/interop/signed-returns.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildAesRequest, minionMessageSigned, openAesEnvelope, signMinionMessage } from '../../../src/core/channel';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem, signPkcs1v15 } from '../../../src/core/crypto/rsa';
import { decode } from '../../../src/core/protocol/msgpack';
import { parseRequestEnvelope } from '../../../src/core/protocol/loads';
import type { AesRequestEnvelope } from '../../../src/core/protocol/envelopes';
import { CHECKED, PLAIN, SIGNED } from '../protocol/signature-vectors';

const pair = generateKeyPair(1024);
const key = privateKeyFromPem(pair.privatePem);
const pub = publicKeyFromPem(pair.publicPem);
const other = privateKeyFromPem(generateKeyPair(1024).privatePem);

/** The decrypted load of the aes request a brine minion sends for `load`, signed with its ts. */
async function sentPlain(load: Record<string, unknown>, signer = key): Promise<{ plain: Buffer; sig: unknown }> {
  const ts = 1_796_671_500;
  const sessionKey = Crypticle.generateKeyString();
  const signed = { ...load, sig: await signMinionMessage(signer, load, ts) };
  const { bytes } = buildAesRequest({ id: 'web1', sessionKey, load: signed, tok: Buffer.from('tok'), ts });
  const opened = openAesEnvelope(parseRequestEnvelope(decode(bytes)) as AesRequestEnvelope, () => ({
    sessionKey,
    tok: Buffer.from('tok'),
  }));
  return { plain: opened.plain, sig: opened.load.sig };
}

const RETURN = {
  cmd: '_return',
  id: 'web1',
  jid: '20261207192500384182',
  fun: 'test.echo',
  fun_args: ['hi'],
  return: { x: 1.5 },
  retcode: 0,
};

describe('minion message signatures', () => {
  it("checks what brine's minion signs: the load with its ts, as Salt's master checks it", async () => {
    const { plain, sig } = await sentPlain(RETURN);
    expect(minionMessageSigned(pub, plain, sig)).toBe(true);
  });

  it('refuses a signature by another key, or over other contents', async () => {
    const forged = await sentPlain(RETURN, other);
    expect(minionMessageSigned(pub, forged.plain, forged.sig)).toBe(false);
    const mine = await sentPlain(RETURN);
    const changed = await sentPlain({ ...RETURN, return: { x: 2.5 } });
    expect(minionMessageSigned(pub, changed.plain, mine.sig)).toBe(false);
  });

  it("takes both forms a Salt 3007 minion signs (without ts, and without its event bus's _stamp), and Salt's master's", () => {
    // PLAIN is Python's wire load; SIGNED what a Salt minion signed for it, CHECKED what Salt's master checks.
    expect(minionMessageSigned(pub, PLAIN, signPkcs1v15(key, SIGNED, 'sha1'))).toBe(true);
    expect(minionMessageSigned(pub, PLAIN, signPkcs1v15(key, CHECKED, 'sha1'))).toBe(true);
    expect(minionMessageSigned(pub, PLAIN, signPkcs1v15(key, PLAIN, 'sha1'))).toBe(false);
  });

  it('treats a sig that is not bytes as no valid signature', () => {
    expect(minionMessageSigned(pub, PLAIN, 42)).toBe(false);
    expect(minionMessageSigned(pub, PLAIN, 'short text')).toBe(false);
  });
});
