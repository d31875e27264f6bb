/**
 * AuthService alone (the master's side of `_auth`): a key store in a temporary pki_dir, the RSA
 * work in process, the events recorded. No transport, no sockets: requests are built and replies
 * opened with the minion side's own channel functions.
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { buildAuthRequest, openAuthReply, openAuthRequest } from '../../../src/core/channel';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem, type KeyPairPem } from '../../../src/core/crypto/rsa';
import { createLogging } from '../../../src/core/log';
import { AuthService, type AuthPolicy } from '../../../src/core/master/auth';
import { AutosignGrainsDir, SigningFile } from '../../../src/core/master/signing-file';
import type { MasterEvents } from '../../../src/core/master/events';
import { KeyStore } from '../../../src/core/master/key-store';
import { PublishKey } from '../../../src/core/master/publish-key';
import { inlineKeyOps, masterRsa } from '../../../src/core/master/master-rsa';
import { Sessions } from '../../../src/core/master/sessions';
import { PendingKeyCap } from '../../../src/core/master/sign-in-limits';
import type { RsaAlgorithms } from '../../../src/core/crypto/rsa-algorithms';

const log = createLogging({ level: 'critical', console: false }).getLogger('test');
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

// 1024-bit keys, made once: the tests are about decisions, not key sizes.
const minionA: KeyPairPem = generateKeyPair(1024);
const minionB: KeyPairPem = generateKeyPair(1024);
/** OAEP with SHA-224 carries at most 70 bytes to a 1024-bit key, less than an AES key string: Salt's default 2048. */
const minion2048: KeyPairPem = generateKeyPair(2048);

interface Fired {
  tag: string;
  data: Record<string, unknown>;
}

function setup(policy: Partial<AuthPolicy> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'brine-auth-'));
  roots.push(root);
  const keys = new KeyStore({ pkiDir: join(root, 'pki') });
  const masterPair = keys.ensureMasterKeys(1024);
  const masterKey = privateKeyFromPem(masterPair.privatePem);
  const publishKey = new PublishKey(masterKey);
  const sessions = new Sessions();
  const fired: Fired[] = [];
  const events = { fire: (tag: string, data: Record<string, unknown>) => fired.push({ tag, data }) } as unknown as MasterEvents;
  const acceptedHere: string[] = [];
  const auth = new AuthService({
    keys,
    masterKey,
    publishKey,
    sessions,
    events,
    log,
    rsa: masterRsa(inlineKeyOps(masterKey)),
    onAccepted: (id) => acceptedHere.push(id),
    policy: { autoAccept: false, autosign: new SigningFile(undefined), openMode: false, publishPort: 4505, ...policy },
  });
  const masterPublic = publicKeyFromPem(masterPair.publicPem);
  /** Sends one `_auth` as a minion would and opens the reply with the minion's private key. */
  async function signIn(id: string, pair: KeyPairPem, token?: string, algorithms?: RsaAlgorithms) {
    const { bytes, nonce } = buildAuthRequest({ id, publicPem: pair.publicPem, masterPublicKey: masterPublic, token, algorithms });
    const reply = await auth.handle(openAuthRequest(bytes).request);
    return openAuthReply(reply, masterPublic, privateKeyFromPem(pair.privatePem), nonce, algorithms);
  }
  return { keys, auth, sessions, publishKey, fired, acceptedHere, signIn, masterPublic };
}

describe('AuthService', () => {
  let t: ReturnType<typeof setup>;
  beforeEach(() => {
    t = setup();
  });

  it('puts a new key in pending and answers "pending", signed by the master', async () => {
    const reply = await t.signIn('web1', minionA);
    expect(reply).toEqual({ kind: 'pending', verified: true });
    expect(t.keys.list('pending')).toEqual(['web1']);
    expect(t.keys.publicKey('web1', 'pending')?.trim()).toBe(minionA.publicPem.trim());
    expect(t.sessions.get('web1')).toBeUndefined();
    expect(t.fired).toEqual([{ tag: 'salt/auth', data: expect.objectContaining({ result: true, act: 'pend', id: 'web1' }) }]);
    // Asking again changes nothing: still pending, still one key.
    expect((await t.signIn('web1', minionA)).kind).toBe('pending');
    expect(t.keys.list('all')).toMatchObject({ pending: ['web1'], accepted: [], denied: [] });
  });

  it('gives an accepted key the publish key and a session key, readable only with the minion key', async () => {
    await t.signIn('web1', minionA);
    t.keys.accept(['web1']);
    const reply = await t.signIn('web1', minionA, 'a-token-for-the-master');
    if (reply.kind !== 'accepted') throw new Error(`expected accepted, got ${reply.kind}`);
    expect(reply.aesKey).toBe(t.publishKey.keyString);
    expect(reply.sessionKey).toBe(t.sessions.get('web1')?.crypticle.keyString());
    expect(reply.publishPort).toBe(4505);
    // The token came back: proof the master holds the private key the minion encrypted it to.
    expect(reply.token?.toString()).toBe('a-token-for-the-master');
    expect(t.fired.at(-1)).toEqual({ tag: 'salt/auth', data: expect.objectContaining({ result: true, act: 'accept', id: 'web1' }) });
    // Another minion's private key cannot open the reply.
    const { bytes, nonce } = buildAuthRequest({ id: 'web1', publicPem: minionA.publicPem });
    const raw = await t.auth.handle(openAuthRequest(bytes).request);
    expect(() => openAuthReply(raw, null, privateKeyFromPem(minionB.privatePem), nonce)).toThrow();
    // The same minion signing in again keeps its session key.
    const again = await t.signIn('web1', minionA);
    expect(again.kind === 'accepted' && again.sessionKey).toBe(reply.sessionKey);
  });

  it('tells a rejected key so, and opens no session', async () => {
    await t.signIn('web1', minionA);
    t.keys.reject(['web1']);
    expect(await t.signIn('web1', minionA)).toEqual({ kind: 'rejected', verified: true });
    expect(t.sessions.get('web1')).toBeUndefined();
    expect(t.fired.at(-1)).toEqual({ tag: 'salt/auth', data: expect.objectContaining({ result: false, act: 'reject', id: 'web1' }) });
  });

  it('refuses a changed key for an accepted id, keeps the known key and puts the offered one in denied', async () => {
    await t.signIn('web1', minionA);
    t.keys.accept(['web1']);
    expect(await t.signIn('web1', minionB)).toEqual({ kind: 'rejected', verified: true });
    expect(t.keys.publicKey('web1', 'accepted')?.trim()).toBe(minionA.publicPem.trim());
    expect(t.keys.publicKey('web1', 'denied')?.trim()).toBe(minionB.publicPem.trim());
    expect(t.sessions.get('web1')).toBeUndefined();
    expect(t.fired.at(-1)).toEqual({ tag: 'salt/auth', data: expect.objectContaining({ result: false, act: 'denied', id: 'web1' }) });
    // The rightful key still signs in.
    expect((await t.signIn('web1', minionA)).kind).toBe('accepted');
  });

  it("answers in the minion's encryption_algorithm and signing_algorithm (SHA-224), and refuses names Salt does not know", async () => {
    const sha224: RsaAlgorithms = { enc: 'OAEP-SHA224', sig: 'PKCS1v15-SHA224' };
    expect(await t.signIn('web1', minion2048, undefined, sha224)).toEqual({ kind: 'pending', verified: true });
    t.keys.accept(['web1']);
    const reply = await t.signIn('web1', minion2048, 'a-token', sha224);
    expect(reply).toMatchObject({ kind: 'accepted', aesKey: t.publishKey.keyString, token: Buffer.from('a-token') });
    // Opened as SHA-1, the same reply does not verify: the master did answer in SHA-224.
    const { bytes, nonce } = buildAuthRequest({ id: 'web1', publicPem: minion2048.publicPem, algorithms: sha224 });
    const raw = await t.auth.handle(openAuthRequest(bytes).request);
    expect(() => openAuthReply(raw, t.masterPublic, privateKeyFromPem(minion2048.privatePem), nonce)).toThrow(/does not verify/);
    const request = openAuthRequest(bytes).request;
    await expect(t.auth.handle({ ...request, enc_algo: 'OAEP-SHA256' })).rejects.toThrow(
      '_auth from web1: enc_algo "OAEP-SHA256" is not one of OAEP-SHA1, OAEP-SHA224',
    );
    await expect(t.auth.handle({ ...request, sig_algo: 'PSS' })).rejects.toMatchObject({ code: 'BAD_LOAD' });
  });

  it('refuses an invalid id or an oversized key before touching the key store', async () => {
    const bad = openAuthRequest(buildAuthRequest({ id: 'web1', publicPem: minionA.publicPem }).bytes).request;
    for (const id of ['../minions/web1', '', 'a/b', '.hidden']) {
      await expect(t.auth.handle({ ...bad, id })).rejects.toMatchObject({ code: 'BAD_ID' });
    }
    await expect(t.auth.handle({ ...bad, pub: 'x'.repeat(9000) })).rejects.toMatchObject({ code: 'BAD_LOAD' });
    expect(t.keys.list('all')).toEqual({ accepted: [], pending: [], rejected: [], denied: [] });
    expect(t.fired).toEqual([]);
  });

  it('auto_accept accepts a new key at once and tells the master', async () => {
    const auto = setup({ autoAccept: true });
    expect((await auto.signIn('web2', minionA)).kind).toBe('accepted');
    expect(auto.keys.list('accepted')).toEqual(['web2']);
    expect(auto.acceptedHere).toEqual(['web2']);
  });

  it('autoreject_file rejects a new and a pending key of a matching id, before autosign, and leaves an accepted one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-autoreject-'));
    roots.push(root);
    writeFileSync(join(root, 'reject.conf'), '# ids to refuse\nbad*\nweb1\n', { mode: 0o600 });
    writeFileSync(join(root, 'sign.conf'), '*\n', { mode: 0o600 });
    const t2 = setup({
      autoreject: new SigningFile(join(root, 'reject.conf'), 'autoreject_file'),
      autosign: new SigningFile(join(root, 'sign.conf')),
    });
    expect(await t2.signIn('bad1', minionA)).toEqual({ kind: 'rejected', verified: true });
    expect(t2.keys.list('rejected')).toEqual(['bad1']);
    expect(t2.fired.at(-1)).toEqual({ tag: 'salt/auth', data: expect.objectContaining({ result: false, act: 'reject', id: 'bad1' }) });
    // A key already pending is moved to minions_rejected; one already accepted stays.
    t2.keys.registerPending('bad2', minionB.publicPem);
    expect(await t2.signIn('bad2', minionB)).toEqual({ kind: 'rejected', verified: true });
    expect(t2.keys.state('bad2')).toBe('rejected');
    t2.keys.registerPending('web1', minionA.publicPem);
    t2.keys.accept(['web1']);
    expect((await t2.signIn('web1', minionA)).kind).toBe('accepted');
    // Others still go by autosign_file.
    expect((await t2.signIn('good1', minionA)).kind).toBe('accepted');
  });

  it('autosign_grains_dir accepts a new key whose minion sends a listed grain value, and only that one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-autosign-grains-'));
    roots.push(root);
    writeFileSync(join(root, 'role'), 'web\n', { mode: 0o600 });
    const t2 = setup({ autosignGrains: new AutosignGrainsDir(root) });
    const ask = async (id: string, grains: Record<string, unknown>) => {
      const { bytes, nonce } = buildAuthRequest({ id, publicPem: minionA.publicPem, autosignGrains: grains });
      const reply = await t2.auth.handle(openAuthRequest(bytes).request);
      return openAuthReply(reply, t2.masterPublic, privateKeyFromPem(minionA.privatePem), nonce).kind;
    };
    expect(await ask('web7', { role: 'web' })).toBe('accepted');
    expect(await ask('mail7', { role: 'mail' })).toBe('pending');
    expect(t2.keys.list('all')).toMatchObject({ accepted: ['web7'], pending: ['mail7'] });
  });

  it('open_mode replaces a known key with the offered one', async () => {
    const open = setup({ openMode: true });
    expect((await open.signIn('web1', minionA)).kind).toBe('accepted');
    expect((await open.signIn('web1', minionB)).kind).toBe('accepted');
    expect(open.keys.publicKey('web1', 'accepted')?.trim()).toBe(minionB.publicPem.trim());
    expect(open.keys.list('denied')).toEqual([]);
  });

  it('beyond max_pending_keys a new id is answered "pending" without a key file', async () => {
    const capped = setup({ pendingCap: new PendingKeyCap(1, log) });
    expect((await capped.signIn('one', minionA)).kind).toBe('pending');
    expect((await capped.signIn('two', minionB)).kind).toBe('pending');
    expect(capped.keys.list('pending')).toEqual(['one']);
  });
});
