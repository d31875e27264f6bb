/**
 * RequestHandler with its real parts (AuthService, JobService, Sessions, the minion requests, the
 * pillar, a SQLite job cache) in a temporary root, served on an in-memory request server: no
 * sockets. Requests are built and replies opened with the minion side's channel functions.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BAD_LOAD_REPLY,
  buildAesRequest,
  buildAuthRequest,
  buildClearRequest,
  makeTok,
  openAesReply,
  openAuthReply,
  openSendPrivateReply,
  signMinionMessage,
} from '../../../src/core/channel';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem } from '../../../src/core/crypto/rsa';
import { createLogging } from '../../../src/core/log';
import { AuthService } from '../../../src/core/master/auth';
import { SigningFile } from '../../../src/core/master/signing-file';
import type { MasterEvents } from '../../../src/core/master/events';
import { ReturnBatcher } from '../../../src/core/master/job-cache/return-batcher';
import { SqliteJobCache } from '../../../src/core/master/job-cache/sqlite-cache';
import { JobService } from '../../../src/core/master/jobs';
import { KeyStore } from '../../../src/core/master/key-store';
import { MineStore } from '../../../src/core/master/mine-store';
import { MinionDataCache } from '../../../src/core/master/minion-data-cache';
import { MinionRequests } from '../../../src/core/master/minion-requests';
import { MasterPillar } from '../../../src/core/master/pillar-service';
import { PublishKey } from '../../../src/core/master/publish-key';
import { ReplayGuard } from '../../../src/core/master/replay-guard';
import { RequestHandler } from '../../../src/core/master/request-handler';
import { ReturnSignatures } from '../../../src/core/master/return-signatures';
import { inlineKeyOps, masterRsa } from '../../../src/core/master/master-rsa';
import { Sessions } from '../../../src/core/master/sessions';
import { SignInRateLimit } from '../../../src/core/master/sign-in-limits';
import { SignInQueue } from '../../../src/core/master/sign-in-queue';
import { decode, encode } from '../../../src/core/protocol/msgpack';
import { MemoryTransport } from '../../../src/core/transport/memory';

const log = createLogging({ level: 'critical', console: false }).getLogger('test');
const root = mkdtempSync(join(tmpdir(), 'brine-reqhandler-'));
const ROOT_KEY = 'the-root-key';
const RET = 'tcp://127.0.0.1:4506';

const keys = new KeyStore({ pkiDir: join(root, 'pki') });
const masterPair = keys.ensureMasterKeys(1024);
const masterKey = privateKeyFromPem(masterPair.privatePem);
const masterPublic = publicKeyFromPem(masterPair.publicPem);
const minionPair = generateKeyPair(1024);
const minionKey = privateKeyFromPem(minionPair.privatePem);
const tok = makeTok(minionKey);

const net = new MemoryTransport();
const server = net.requestServer();
const cache = new SqliteJobCache(join(root, 'jobs.sqlite'));
const dataCache = new MinionDataCache(join(root, 'cache'));
const sessions = new Sessions();
const publishKey = new PublishKey(masterKey);
const fired: Array<{ tag: string; data: Record<string, unknown> }> = [];
const events = { fire: (tag: string, data: Record<string, unknown>) => fired.push({ tag, data }) } as unknown as MasterEvents;
const accepted = new Set<string>();
let reconciles = 0;
const rsa = masterRsa(inlineKeyOps(masterKey));
const auth = new AuthService({
  keys,
  masterKey,
  rsa,
  publishKey,
  sessions,
  events,
  log,
  onAccepted: (id) => accepted.add(id),
  policy: { autoAccept: false, autosign: new SigningFile(undefined), openMode: false, publishPort: 4505 },
});
const publisher = net.publishServer();
const jobs = new JobService({
  accepted: () => accepted,
  dataCache,
  masterKey,
  publishKey,
  publisher,
  events,
  log,
  nodegroups: {},
  cache: { jobs: cache, returns: new ReturnBatcher(cache) },
});
/** The services every handler here shares. */
const services = { auth, jobs, sessions, dataCache, events, rsa, log };
const handler = new RequestHandler({
  ...services,
  hooks: { rootKey: () => ROOT_KEY, beforePublish: () => void reconciles++ },
  pillar: new MasterPillar({ pillar_roots: { base: [join(root, 'pillar')] } }, dataCache, log),
  minionRequests: new MinionRequests({
    files: { file_roots: { base: [join(root, 'files')] } },
    mine: new MineStore(join(root, 'cache')),
    accepted: () => accepted,
    grains: (id) => dataCache.grains(id),
    options: {},
  }),
  limits: { maxRequestSize: 64 * 1024, signIns: new SignInRateLimit(5), replays: new ReplayGuard(60) },
});
const client = net.requestClient(RET);
let sessionKey = '';

beforeAll(async () => {
  mkdirSync(join(root, 'pillar'), { recursive: true });
  mkdirSync(join(root, 'files'), { recursive: true });
  await server.bind(RET);
  server.serve(
    (payload, peer) => handler.handle(payload, peer),
    (err) => {
      throw err;
    },
  );
});
afterAll(async () => {
  client.close();
  await server.close();
  await dataCache.flush();
  cache.close();
  rmSync(root, { recursive: true, force: true });
});

/** A second handler over the same services, with no pillar or files, for one test's limits. */
function sideHandler(
  extra: Pick<ConstructorParameters<typeof RequestHandler>[0], 'limits' | 'signInQueue' | 'returnSignatures'>,
): RequestHandler {
  return new RequestHandler({
    ...services,
    hooks: { rootKey: () => ROOT_KEY, beforePublish: () => undefined },
    pillar: new MasterPillar({}, dataCache, log),
    minionRequests: new MinionRequests({
      files: { file_roots: {} },
      mine: new MineStore(join(root, 'cache')),
      accepted: () => accepted,
      grains: () => undefined,
      options: {},
    }),
    ...extra,
  });
}

async function signIn() {
  const { bytes, nonce } = buildAuthRequest({ id: 'web1', publicPem: minionPair.publicPem });
  return openAuthReply(await client.request(bytes, 5000), masterPublic, minionKey, nonce);
}

/** One aes request from web1 (or another id, with another key): the reply opened. */
async function aes(load: Record<string, unknown>, opts: { id?: string; key?: string; nonce?: string } = {}) {
  const { bytes, nonce } = buildAesRequest({ id: opts.id ?? 'web1', sessionKey: opts.key ?? sessionKey, load, tok, nonce: opts.nonce });
  const reply = await client.request(bytes, 5000);
  if (reply.equals(BAD_LOAD_REPLY)) return 'bad load';
  return load.cmd === '_pillar' ? openSendPrivateReply(reply, minionKey, masterPublic, nonce) : openAesReply(reply, sessionKey, nonce);
}

function publish(key: string) {
  return client.request(
    buildClearRequest({
      cmd: 'publish',
      tgt: 'web1',
      tgt_type: 'glob',
      fun: 'test.ping',
      arg: [],
      key,
      ret: '',
      jid: '',
      kwargs: {},
      user: 'root',
    }),
    5000,
  );
}

describe('RequestHandler', () => {
  it('hands a clear _auth to the auth service: pending, then, once accepted, a session', async () => {
    expect((await signIn()).kind).toBe('pending');
    keys.accept(['web1']);
    accepted.add('web1');
    const reply = await signIn();
    if (reply.kind !== 'accepted') throw new Error(`expected accepted, got ${reply.kind}`);
    expect(reply.sessionKey).toBe(sessions.get('web1')?.crypticle.keyString());
    sessionKey = reply.sessionKey;
  });

  it('publishes for the holder of the root key only, reconciling keys first', async () => {
    // As Salt 3007's master answers it (checked in test/interop/brine-minion-salt-master.test.ts).
    expect(decode(await publish('wrong'))).toEqual({ error: { name: 'AuthenticationError', message: 'Authentication error occurred.' } });
    expect(reconciles).toBe(0);
    const reply = decode(await publish(ROOT_KEY)) as { load: { jid: string; minions: string[] } };
    expect(reply.load.minions).toEqual(['web1']);
    expect(reconciles).toBe(1);
    // The minion's _return to it is stored and acknowledged with an encrypted null.
    const ack = await aes({
      cmd: '_return',
      id: 'web1',
      jid: reply.load.jid,
      fun: 'test.ping',
      fun_args: [],
      return: true,
      retcode: 0,
      success: true,
    });
    expect(ack).toBeNull();
    expect(Object.keys(await cache.getReturns(reply.load.jid))).toEqual(['web1']);
  });

  it("fires a minion event, but no job event in another minion's name", async () => {
    fired.length = 0;
    expect(await aes({ cmd: '_minion_event', id: 'web1', tag: 'my/event', data: { x: 1 } })).toBeNull();
    expect(await aes({ cmd: '_minion_event', id: 'web1', tag: 'salt/job/20260101000000000000/ret/db1', data: {} })).toBeNull();
    expect(fired).toEqual([{ tag: 'my/event', data: { cmd: '_minion_event', id: 'web1', tag: 'my/event', data: { x: 1 } } }]);
  });

  it('answers _pillar sealed to the minion key, a file server request, and {} for an unknown method', async () => {
    expect(
      await aes({ cmd: '_pillar', id: 'web1', grains: { os: 'Debian' }, saltenv: 'base', pillarenv: null, pillar_override: {}, ver: '2' }),
    ).toEqual({});
    expect(dataCache.grains('web1')).toMatchObject({ os: 'Debian', id: 'web1' });
    expect(await aes({ cmd: '_file_envs' })).toEqual(['base']);
    expect(await aes({ cmd: 'no_such_method' })).toEqual({});
  });

  it('answers "bad load" to garbage, unknown commands, unknown or forged senders, replays and oversized requests', async () => {
    const replayed = buildAesRequest({ id: 'web1', sessionKey, load: { cmd: '_file_envs' }, tok });
    expect(await client.request(replayed.bytes, 5000)).not.toEqual(BAD_LOAD_REPLY);
    const bad: Buffer[] = [
      Buffer.from([0xc1, 0xff, 0x00]), // no msgpack
      encode('a string'),
      encode({ enc: 'clear', load: { cmd: 'nope' }, version: 3 }),
      encode({ enc: 'clear', load: { cmd: '_auth', id: 'x' }, version: 3 }), // _auth without its fields
      encode({ enc: 'rot13', load: {} }),
      buildAesRequest({ id: 'db1', sessionKey, load: { cmd: '_file_envs' }, tok }).bytes, // no session for db1
      buildAesRequest({ id: '../web1', sessionKey, load: { cmd: '_file_envs' }, tok }).bytes, // invalid id
      buildAesRequest({ id: 'web1', sessionKey: publishKey.keyString, load: { cmd: '_file_envs' }, tok }).bytes, // wrong key
      buildAesRequest({ id: 'web1', sessionKey, load: { cmd: '_file_envs', id: 'db1' }, tok }).bytes, // load id not the envelope's
      replayed.bytes,
      Buffer.alloc(64 * 1024 + 1),
    ];
    // All at once: each gets its own answer.
    const replies = await Promise.all(bad.map((b) => client.request(b, 5000)));
    expect(replies.map((r) => r.equals(BAD_LOAD_REPLY))).toEqual(bad.map(() => true));
    // And the master goes on serving.
    expect(await aes({ cmd: '_file_envs' })).toEqual(['base']);
  });

  it('answers sign-ins beyond auth_rate_limit on one connection with "bad load", not those of another', async () => {
    // A clock that stands still: every sign-in falls in the same second, however loaded the machine.
    const limited = sideHandler({ limits: { maxRequestSize: 64 * 1024, signIns: new SignInRateLimit(2, () => 1_000_000) } });
    const signInFrom = async (peer: string) =>
      !(await limited.handle(buildAuthRequest({ id: 'web1', publicPem: minionPair.publicPem }).bytes, Buffer.from(peer)))!.equals(
        BAD_LOAD_REPLY,
      );
    const served: boolean[] = [];
    for (let i = 0; i < 4; i++) served.push(await signInFrom('peer-a'));
    expect(served).toEqual([true, true, false, false]);
    expect(await signInFrom('peer-b')).toBe(true);
  });

  it('leaves a sign-in unanswered, with no work done, when its connection closed while it waited its turn', async () => {
    const queue = new SignInQueue(1);
    const queued = sideHandler({ signInQueue: queue });
    const first = buildAuthRequest({ id: 'web1', publicPem: minionPair.publicPem });
    const live = queued.handle(first.bytes, Buffer.from('a'), () => true);
    // Another minion, so that only its closed connection can be why it is dropped.
    const other = buildAuthRequest({ id: 'web9', publicPem: minionPair.publicPem });
    const gone = queued.handle(other.bytes, Buffer.from('b'), () => false);
    expect(await gone).toBeNull();
    expect(queue.abandoned).toBe(1);
    expect(openAuthReply((await live)!, masterPublic, minionKey, first.nonce).kind).toBe('accepted');
  });

  it("keeps the minion's verified tok as text of its own, not in the request or a pool slab it came in", async () => {
    sessions.end('web1');
    const reply = await signIn();
    if (reply.kind !== 'accepted') throw new Error(`expected accepted, got ${reply.kind}`);
    sessionKey = reply.sessionKey;
    // A real minion's first request is its _pillar, with all its grains (10-20 KiB).
    const grains = { os: 'Debian', cpu_flags: Array.from({ length: 3000 }, (_, i) => `flag${i}`) };
    expect(await aes({ cmd: '_pillar', id: 'web1', grains, saltenv: 'base', pillarenv: null, pillar_override: {}, ver: '2' })).toEqual({});
    const kept = sessions.get('web1')?.tok;
    // Text, so neither the decrypted request nor a slab of Node's buffer pool (one slab pinned per
    // session was 78 MiB at 10,000 minions) is held; and a wrong tok is still refused.
    expect(typeof kept).toBe('string');
    expect(Buffer.from(kept!, 'latin1').equals(tok)).toBe(true);
    const forged = Buffer.from(tok);
    forged[0] ^= 1;
    const refused = buildAesRequest({ id: 'web1', sessionKey, load: { cmd: '_file_envs' }, tok: forged });
    expect(await client.request(refused.bytes, 5000)).toEqual(BAD_LOAD_REPLY);
    expect(await aes({ cmd: '_file_envs' })).toEqual(['base']);
  });
  it('checks a signed return against the minion key, and drops what require_minion_sign_messages and drop_messages_signature_fail say, answering False', async () => {
    const strict = sideHandler({ returnSignatures: new ReturnSignatures({ require: true, dropFailed: true }, log) });
    const lenient = sideHandler({ returnSignatures: new ReturnSignatures({ require: false, dropFailed: false }, log) });
    const other = privateKeyFromPem(generateKeyPair(1024).privatePem);
    /** A _return for a new job to web1, signed by `signer` (none: unsigned), through `to`: its reply and whether it was stored. */
    const sendReturn = async (to: RequestHandler, signer: typeof minionKey | null, tamper = false) => {
      const { jid } = (decode(await publish(ROOT_KEY)) as { load: { jid: string } }).load;
      const load = { cmd: '_return', id: 'web1', jid, fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true };
      const ts = Math.floor(Date.now() / 1000);
      const sig = signer ? await signMinionMessage(signer, load, ts) : undefined;
      const sent = { ...load, ...(tamper ? { return: false } : {}), ...(sig ? { sig } : {}) };
      const { bytes, nonce } = buildAesRequest({ id: 'web1', sessionKey, load: sent, tok, ts });
      const reply = openAesReply((await to.handle(bytes))!, sessionKey, nonce);
      return { reply, stored: Object.keys(await cache.getReturns(jid)).length === 1 };
    };
    expect(await sendReturn(strict, minionKey)).toEqual({ reply: null, stored: true });
    expect(await sendReturn(strict, null)).toEqual({ reply: false, stored: false });
    expect(await sendReturn(strict, other)).toEqual({ reply: false, stored: false });
    expect(await sendReturn(strict, minionKey, true)).toEqual({ reply: false, stored: false });
    // Salt's defaults: a signature that fails is logged, and the return taken all the same.
    expect(await sendReturn(lenient, other)).toEqual({ reply: null, stored: true });
    expect(await sendReturn(lenient, null)).toEqual({ reply: null, stored: true });
  });
});
