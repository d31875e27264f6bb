/**
 * Salt's signed master public key, both sides in process: the master's `master_sign_pubkey`
 * (pub_sig in accepted sign-in replies, made with master_sign.pem or read from a signature file)
 * and the minion's `verify_master_pubkey_sign` (Salt's verify_master: check_auth_deps, a new
 * master key trusted when master_sign.pub vouches for it, always_verify_signature).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAuthRequest, openAuthRequest, wirePem } from '../../../src/core/channel';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem, verifyPkcs1v15, type KeyPairPem } from '../../../src/core/crypto/rsa';
import type { RsaAlgorithms } from '../../../src/core/crypto/rsa-algorithms';
import { ConfigError } from '../../../src/core/errors';
import { createLogging } from '../../../src/core/log';
import { AuthService } from '../../../src/core/master/auth';
import type { MasterEvents } from '../../../src/core/master/events';
import { KeyStore } from '../../../src/core/master/key-store';
import { inlineKeyOps, masterRsa } from '../../../src/core/master/master-rsa';
import { pubkeySignature, type PubkeySignatureSettings } from '../../../src/core/master/pubkey-signature';
import { PublishKey } from '../../../src/core/master/publish-key';
import { Sessions } from '../../../src/core/master/sessions';
import { SigningFile } from '../../../src/core/master/signing-file';
import { openTrustedAuthReply, type SignedMasterKeySettings } from '../../../src/core/minion/master-trust';
import { MasterKeyMismatchError } from '../../../src/core/minion/minion-errors';
import { decode } from '../../../src/core/protocol/msgpack';

const log = createLogging({ level: 'critical', console: false }).getLogger('test');
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'brine-signed-master-'));
  roots.push(root);
  return root;
}

const minion: KeyPairPem = generateKeyPair(1024);

/** A master (auto_accept) in its own pki_dir; `signing` its master_sign options. */
function master(pkiDir: string, signing: Partial<PubkeySignatureSettings> = {}) {
  const keys = new KeyStore({ pkiDir });
  const pair = keys.ensureMasterKeys(1024);
  const masterKey = privateKeyFromPem(pair.privatePem);
  const auth = new AuthService({
    keys,
    masterKey,
    publishKey: new PublishKey(masterKey),
    sessions: new Sessions(),
    events: { fire: () => undefined } as unknown as MasterEvents,
    log,
    rsa: masterRsa(inlineKeyOps(masterKey)),
    pubkeySignature: pubkeySignature({ pki_dir: pkiDir, keysize: 1024, master_sign_pubkey: true, ...signing }, pair.publicPem, log),
    policy: { autoAccept: true, autosign: new SigningFile(undefined), openMode: false, publishPort: 4505 },
  });
  return { auth, publicPem: pair.publicPem };
}

/** A minion's pki_dir, with the master's master_sign.pub copied in when `from` names the master's. */
function minionPki(from?: string): string {
  const dir = join(tempRoot(), 'pki', 'minion');
  mkdirSync(dir, { recursive: true });
  if (from) copyFileSync(join(from, 'master_sign.pub'), join(dir, 'master_sign.pub'));
  return dir;
}

/** Signs in to `m` and returns the raw reply. */
async function signIn(m: ReturnType<typeof master>, algorithms?: RsaAlgorithms): Promise<{ reply: Buffer; nonce: string }> {
  const { bytes, nonce } = buildAuthRequest({ id: 'web1', publicPem: minion.publicPem, algorithms });
  return { reply: await m.auth.handle(openAuthRequest(bytes).request), nonce };
}

function inner(reply: Buffer): Record<string, unknown> {
  return decode((decode(reply) as { load: Buffer }).load) as Record<string, unknown>;
}

const VERIFY: SignedMasterKeySettings = { verify: true, always: false, keyName: 'master_sign' };

function trust(sent: { reply: Buffer; nonce: string }, pkiDir: string, signing: SignedMasterKeySettings, cachedPem?: string) {
  return openTrustedAuthReply(sent.reply, sent.nonce, {
    pkiDir,
    master: '127.0.0.1',
    masterPort: 4506,
    masterKey: cachedPem ? publicKeyFromPem(cachedPem) : undefined,
    minionKey: privateKeyFromPem(minion.privatePem),
    signedMasterKey: signing,
  });
}

function trustError(run: () => unknown): MasterKeyMismatchError {
  try {
    run();
  } catch (err) {
    if (err instanceof MasterKeyMismatchError) return err;
    throw err;
  }
  throw new Error('expected MasterKeyMismatchError');
}

describe("the master's master_sign_pubkey", () => {
  it("makes master_sign.pem at the first start and sends pub_sig after publish_port: base64 of master_sign.pem's signature of the key as sent, by the minion's sig_algo", async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki);
    const signPub = readFileSync(join(pki, 'master_sign.pub'), 'utf8');
    expect(readFileSync(join(pki, 'master_sign.pem'), 'utf8')).toContain('PRIVATE KEY');
    for (const [algorithms, hash] of [
      [undefined, 'sha1'],
      [{ enc: 'OAEP-SHA1', sig: 'PKCS1v15-SHA224' }, 'sha224'],
    ] as const) {
      const load = inner((await signIn(m, algorithms)).reply);
      expect(Object.keys(load).slice(0, 4)).toEqual(['enc', 'pub_key', 'publish_port', 'pub_sig']);
      // binascii.b2a_base64: one line and a newline; bytes, which Salt's msgpack packs as a raw string.
      const pubSig = load.pub_sig as string;
      expect(pubSig).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
      const sig = Buffer.from(pubSig, 'base64');
      expect(verifyPkcs1v15(signPub, Buffer.from(wirePem(m.publicPem), 'utf8'), sig, hash)).toBe(true);
    }
    // The next start keeps the signing key.
    master(pki);
    expect(readFileSync(join(pki, 'master_sign.pub'), 'utf8')).toBe(signPub);
  });

  it('master_use_pubkey_signature: sends the text of the signature file, cleaned as Salt cleans it, and fails to start without it', async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    mkdirSync(pki, { recursive: true });
    writeFileSync(join(pki, 'my_signature'), '  c2lnbmF0dXJl\r\n');
    const m = master(pki, { master_use_pubkey_signature: true, master_pubkey_signature: 'my_signature' });
    expect(inner((await signIn(m)).reply).pub_sig).toBe('c2lnbmF0dXJl');
    const missing = join(tempRoot(), 'pki', 'master');
    let err: unknown;
    try {
      master(missing, { master_use_pubkey_signature: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(
      `Signing the master.pub key with a signature is enabled but no signature file found at the defined location ${join(missing, 'master_pubkey_signature')}`,
    );
    expect((err as ConfigError).hint).toContain("salt-key --gen-signature'");
  });

  it('without master_sign_pubkey: no pub_sig and no signing key', async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki, { master_sign_pubkey: false });
    expect(inner((await signIn(m)).reply)).not.toHaveProperty('pub_sig');
    expect(() => readFileSync(join(pki, 'master_sign.pem'))).toThrow();
  });
});

describe("the minion's verify_master_pubkey_sign", () => {
  it('trusts a first master whose key master_sign.pub vouches for, and returns the key to cache', async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki);
    const opened = trust(await signIn(m), minionPki(pki), VERIFY);
    expect(opened).toMatchObject({ kind: 'accepted', vouchedMasterKey: wirePem(m.publicPem) });
  });

  it('trusts a re-keyed master that the same signing key vouches for, where an unsigned new key is refused', async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const before = master(pki);
    // The master re-keyed: a new master.pem beside the same master_sign pair.
    rmSync(join(pki, 'master.pem'));
    rmSync(join(pki, 'master.pub'));
    const after = master(pki);
    expect(after.publicPem).not.toBe(before.publicPem);
    const opened = trust(await signIn(after), minionPki(pki), VERIFY, before.publicPem);
    expect(opened).toMatchObject({ kind: 'accepted', vouchedMasterKey: wirePem(after.publicPem) });

    // The same new key without a signature, to a minion that does not verify: Salt's refusal.
    const unsignedPki = join(tempRoot(), 'pki', 'master');
    const unsigned = master(unsignedPki, { master_sign_pubkey: false });
    const sent = await signIn(unsigned);
    const err = trustError(() => trust(sent, minionPki(), { ...VERIFY, verify: false }, before.publicPem));
    expect(err.message).toMatch(/^The master key has changed, the salt master could have been subverted/);
  });

  it("refuses a key signed by another signing key, with Salt's error", async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki);
    const elsewhere = join(tempRoot(), 'pki', 'master');
    master(elsewhere); // another master, another master_sign pair
    const sent = await signIn(m);
    const err = trustError(() => trust(sent, minionPki(elsewhere), VERIFY));
    expect(err.message).toBe('Received signed public-key from master 127.0.0.1 but signature verification failed!');
  });

  it("says where master_sign.pub must go when the minion has none (Salt's text)", async () => {
    const sent = await signIn(master(join(tempRoot(), 'pki', 'master')));
    const pki = minionPki();
    const err = trustError(() => trust(sent, pki, VERIFY));
    expect(err.message).toBe(
      'Verification public key master_sign.pub does not exist. You need to copy it from the master to the minions pki directory',
    );
    expect(err.hint).toContain(pki);
  });

  it("refuses when only one side signs (Salt's check_auth_deps), whatever the keys", async () => {
    const signed = join(tempRoot(), 'pki', 'master');
    const signedSent = await signIn(master(signed));
    expect(trustError(() => trust(signedSent, minionPki(signed), { ...VERIFY, verify: false })).message).toBe(
      'The masters sent its public-key signature, but signature verification is not enabled on the minion. Either enable signature verification on the minion or disable signing the public key on the master!',
    );
    const plain = await signIn(master(join(tempRoot(), 'pki', 'master'), { master_sign_pubkey: false }));
    expect(trustError(() => trust(plain, minionPki(signed), VERIFY)).message).toBe(
      'The master did not send its public-key signature, but signature verification is enabled on the minion. Either disable signature verification on the minion or enable signing the public on the master!',
    );
  });

  it('checks the signature of an unchanged key only with always_verify_signature', async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki);
    const elsewhere = join(tempRoot(), 'pki', 'master');
    master(elsewhere);
    // The cached key is the master's own: without always_verify_signature, a stale master_sign.pub is not read.
    const opened = trust(await signIn(m), minionPki(elsewhere), VERIFY, m.publicPem);
    expect(opened.kind).toBe('accepted');
    expect(opened).not.toHaveProperty('vouchedMasterKey');
    const sent = await signIn(m);
    expect(trustError(() => trust(sent, minionPki(elsewhere), { ...VERIFY, always: true }, m.publicPem)).message).toBe(
      'The masters public could not be verified. Is the verification pubkey master_sign.pub up to date?',
    );
    expect(trust(await signIn(m), minionPki(pki), { ...VERIFY, always: true }, m.publicPem)).not.toHaveProperty('vouchedMasterKey');
  });

  it("verifies by the minion's signing_algorithm, as Salt's verify_pubkey_sig", async () => {
    const pki = join(tempRoot(), 'pki', 'master');
    const m = master(pki);
    const algorithms: RsaAlgorithms = { enc: 'OAEP-SHA1', sig: 'PKCS1v15-SHA224' };
    const sent = await signIn(m, algorithms);
    const opened = openTrustedAuthReply(sent.reply, sent.nonce, {
      pkiDir: minionPki(pki),
      master: '127.0.0.1',
      masterPort: 4506,
      minionKey: privateKeyFromPem(minion.privatePem),
      algorithms,
      signedMasterKey: VERIFY,
    });
    expect(opened).toMatchObject({ kind: 'accepted', vouchedMasterKey: wirePem(m.publicPem) });
  });
});
