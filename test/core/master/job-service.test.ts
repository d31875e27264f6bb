/**
 * JobService alone: publications go out on an in-memory publish server (no sockets) and are opened
 * as a minion opens them; returns go to a real SQLite job cache in a temporary directory; the
 * events are recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPublication, publicationPayload } from '../../../src/core/channel';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem } from '../../../src/core/crypto/rsa';
import { createLogging } from '../../../src/core/log';
import type { MasterEvents } from '../../../src/core/master/events';
import { ReturnBatcher } from '../../../src/core/master/job-cache/return-batcher';
import { SqliteJobCache } from '../../../src/core/master/job-cache/sqlite-cache';
import { JobService } from '../../../src/core/master/jobs';
import { MinionDataCache } from '../../../src/core/master/minion-data-cache';
import { PublishKey } from '../../../src/core/master/publish-key';
import type { JobLoad, PublishRequestLoad, ReturnLoad } from '../../../src/core/protocol/loads';
import { decode } from '../../../src/core/protocol/msgpack';
import type { SigningAlgorithm } from '../../../src/core/crypto/rsa-algorithms';
import { MemoryTransport } from '../../../src/core/transport/memory';
import type { ISubscribeClient } from '../../../src/core/transport/types';

const log = createLogging({ level: 'critical', console: false }).getLogger('test');
const root = mkdtempSync(join(tmpdir(), 'brine-jobs-'));
const masterPair = generateKeyPair(1024);
const masterKey = privateKeyFromPem(masterPair.privatePem);
const masterPublic = publicKeyFromPem(masterPair.publicPem);
const PUB = 'tcp://127.0.0.1:4505';

const net = new MemoryTransport();
const publisher = net.publishServer();
let subscriber: ISubscribeClient;
let inbox: AsyncIterator<Buffer[]>;
const cache = new SqliteJobCache(join(root, 'jobs.sqlite'));
const returns = new ReturnBatcher(cache);
const dataCache = new MinionDataCache(join(root, 'cache'));
const publishKey = new PublishKey(masterKey);
const accepted = new Set(['web1', 'web2', 'db1']);
const connected = new Set(['web1', 'web2']);
const fired: Array<{ tag: string; data: Record<string, unknown> }> = [];
const events = { fire: (tag: string, data: Record<string, unknown>) => fired.push({ tag, data }) } as unknown as MasterEvents;

function service(
  remembered?: { jobs: number; ids: number },
  storeReturns?: boolean,
  signing: { signPublications?: boolean; signingAlgorithm?: SigningAlgorithm } = {},
): JobService {
  return new JobService({
    remembered,
    storeReturns,
    ...signing,
    accepted: () => accepted,
    dataCache,
    masterKey,
    publishKey,
    publisher,
    events,
    log,
    nodegroups: { dbs: 'db*' },
    cache: { jobs: cache, returns },
    hasSession: (id) => connected.has(id),
  });
}
const jobs = service();

beforeAll(async () => {
  await publisher.bind(PUB);
  subscriber = net.subscribeClient();
  subscriber.connect(PUB);
  await subscriber.whenConnected();
  inbox = subscriber.messages()[Symbol.asyncIterator]();
  dataCache.update('db1', { grains: { role: 'db', os: 'Debian' } });
  dataCache.update('web1', { grains: { role: 'web', os: 'Debian' } });
  dataCache.update('web2', { grains: { role: 'web', os: 'Debian' } });
});
afterEach(() => {
  fired.length = 0;
});
afterAll(async () => {
  subscriber.close();
  await publisher.close();
  await dataCache.flush();
  cache.close();
  rmSync(root, { recursive: true, force: true });
});

function request(tgt: string, tgtType = 'glob', extra: Partial<PublishRequestLoad> = {}): PublishRequestLoad {
  return {
    cmd: 'publish',
    tgt,
    tgt_type: tgtType,
    fun: 'test.ping',
    arg: [],
    key: 'k',
    ret: '',
    jid: '',
    kwargs: {},
    user: 'root',
    ...extra,
  };
}

/** The next publication on the wire, opened as a minion opens it. */
async function nextPublication(): Promise<JobLoad> {
  const { value } = await inbox.next();
  return openPublication(publicationPayload(value as Buffer[]), publishKey.crypticle, masterPublic);
}

function ret(jid: string, id: string, value: unknown = true): ReturnLoad {
  return { cmd: '_return', id, jid, fun: 'test.ping', fun_args: [], return: value, retcode: 0, success: true };
}

describe('JobService.publish', () => {
  it('publishes one signed, encrypted job for the targeted minions and stores it first', async () => {
    const reply = await jobs.publish(request('web*', 'glob', { arg: ['x'], user: 'alice' }));
    expect(reply).toMatchObject({ minions: ['web1', 'web2'], missing: [], not_connected: [] });
    expect(reply.jid).toMatch(/^\d{20}$/);
    const job = await nextPublication();
    expect(job).toMatchObject({ fun: 'test.ping', arg: ['x'], tgt: 'web*', tgt_type: 'glob', jid: reply.jid, user: 'alice', ret: '' });
    expect((await cache.getJob(reply.jid!))?.minions).toEqual(['web1', 'web2']);
    // Salt's three events of a new job, in Salt's order.
    expect(fired.map((e) => e.tag)).toEqual([reply.jid, `salt/job/${reply.jid}/new`, `salt/job/${reply.jid}/publish`]);
    expect(fired[0].data).toEqual({ minions: ['web1', 'web2'] });
    expect(fired[1].data).toMatchObject({ jid: reply.jid, fun: 'test.ping', minions: ['web1', 'web2'], user: 'alice' });
  });

  it('publishes without a signature when sign_pub_messages is False, as a Salt master does', async () => {
    const reply = await service(undefined, undefined, { signPublications: false }).publish(request('web1', 'glob'));
    const { value } = await inbox.next();
    const payload = publicationPayload(value as Buffer[]);
    expect(Object.keys(decode(payload) as object)).toEqual(['enc', 'load']);
    expect(openPublication(payload, publishKey.crypticle, null).jid).toBe(reply.jid);
  });

  it('signs with publish_signing_algorithm', async () => {
    const reply = await service(undefined, undefined, { signingAlgorithm: 'PKCS1v15-SHA224' }).publish(request('web1', 'glob'));
    const { value } = await inbox.next();
    const payload = publicationPayload(value as Buffer[]);
    expect((decode(payload) as { sig_algo: string }).sig_algo).toBe('PKCS1v15-SHA224');
    expect(openPublication(payload, publishKey.crypticle, masterPublic).jid).toBe(reply.jid);
  });

  it('targets by the grains the minions sent, keeps a given jid, and names the minions not signed in', async () => {
    const reply = await jobs.publish(request('role:db', 'grain', { jid: '20261203120000000001' }));
    expect(reply).toEqual({ jid: '20261203120000000001', minions: ['db1'], missing: [], not_connected: ['db1'] });
    expect((await nextPublication()).jid).toBe('20261203120000000001');
  });

  it('sends minions the expanded nodegroup, as they do not know the master nodegroups', async () => {
    const reply = await jobs.publish(request('dbs', 'nodegroup'));
    expect(reply.minions).toEqual(['db1']);
    const job = await nextPublication();
    expect(job.tgt_type).toBe('compound');
    expect(job.tgt).toContain('db*');
  });

  it('answers a target matching nobody, or a malformed one, with an error and publishes nothing', async () => {
    expect(await jobs.publish(request('nomatch*'))).toEqual({
      jid: null,
      minions: [],
      error: 'Master could not resolve minions for target nomatch*',
    });
    const bad = await jobs.publish(request('G@', 'compound'));
    expect(bad.jid).toBeNull();
    expect(bad.error).toEqual(expect.any(String));
    expect(fired).toEqual([]);
    // Nothing was queued on the wire: the next publication is the next job.
    const next = await jobs.publish(request('web1'));
    expect((await nextPublication()).jid).toBe(next.jid);
  });
});

describe('JobService.onReturn', () => {
  it('stores a return once per (jid, id) and fires one ret event', async () => {
    const { jid } = await jobs.publish(request('web*'));
    await nextPublication();
    fired.length = 0;
    await jobs.onReturn('web1', ret(jid!, 'web1', 'first'));
    await jobs.onReturn('web1', ret(jid!, 'web1', 'again'));
    await jobs.onReturn('web2', ret(jid!, 'web2'));
    const stored = await cache.getReturns(jid!);
    expect(Object.keys(stored).sort()).toEqual(['web1', 'web2']);
    expect(stored.web1.return).toBe('first');
    expect(fired.map((e) => e.tag)).toEqual([`salt/job/${jid}/ret/web1`, `salt/job/${jid}/ret/web2`]);
    expect(fired[0].data).toMatchObject({ cmd: '_return', id: 'web1', jid, fun: 'test.ping', return: 'first', retcode: 0, success: true });
  });

  it('drops a return for a job never published, or from a minion the job was not for', async () => {
    const { jid } = await jobs.publish(request('web1'));
    await nextPublication();
    fired.length = 0;
    await jobs.onReturn('db1', ret(jid!, 'db1'));
    await jobs.onReturn('web1', ret('20200101000000000000', 'web1'));
    await jobs.onReturn('web1', ret('not-a-jid', 'web1'));
    expect(await cache.getReturns(jid!)).toEqual({});
    expect(await cache.getReturns('20200101000000000000')).toEqual({});
    expect(fired).toEqual([]);
  });

  it('after a restart, takes returns for jobs it finds in the job cache', async () => {
    const { jid } = await jobs.publish(request('web*'));
    await nextPublication();
    const restarted = service();
    await restarted.onReturn('web2', ret(jid!, 'web2', 'late'));
    await restarted.onReturn('db1', ret(jid!, 'db1'));
    expect(Object.keys(await cache.getReturns(jid!))).toEqual(['web2']);
  });

  it('keeps recent jobs in memory up to a number of expected minions, and asks the job cache for older ones', async () => {
    const small = service({ jobs: 100, ids: 5 });
    const jids: string[] = [];
    for (let i = 0; i < 3; i++) {
      jids.push((await small.publish(request('web*'))).jid!);
      await nextPublication();
    }
    const asked: string[] = [];
    const getJob = cache.getJob.bind(cache);
    cache.getJob = (jid) => (asked.push(jid), getJob(jid));
    try {
      // 3 jobs of 2 minions: the oldest went past 5 ids and is looked up in the job cache.
      await small.onReturn('web1', ret(jids[2], 'web1', 'newest'));
      await small.onReturn('web1', ret(jids[1], 'web1', 'middle'));
      expect(asked).toEqual([]);
      await small.onReturn('web1', ret(jids[0], 'web1', 'oldest'));
      await small.onReturn('db1', ret(jids[0], 'db1'));
      expect(asked).toEqual([jids[0], jids[0]]);
    } finally {
      cache.getJob = getJob;
    }
    expect(Object.keys(await cache.getReturns(jids[0]))).toEqual(['web1']);
  });

  it('with job_cache false stores no return, fires each event once, and still drops repeats', async () => {
    const uncached = service(undefined, false);
    const { jid } = await uncached.publish(request('web*'));
    await nextPublication();
    fired.length = 0;
    await uncached.onReturn('web1', ret(jid!, 'web1', 'first'));
    await uncached.onReturn('web1', ret(jid!, 'web1', 'again'));
    await uncached.onReturn('db1', ret(jid!, 'db1'));
    await uncached.onReturn('web2', ret(jid!, 'web2'));
    expect(fired.map((e) => e.tag)).toEqual([`salt/job/${jid}/ret/web1`, `salt/job/${jid}/ret/web2`]);
    expect(fired[0].data).toMatchObject({ id: 'web1', return: 'first' });
    expect(await cache.getReturns(jid!)).toEqual({});
    // The job itself is still stored, as in Salt.
    expect((await cache.getJob(jid!))?.minions).toEqual(['web1', 'web2']);
  });

  it("gives each of a minion's own returns (salt-call, jid 'req') a jid and a job of its own, as Salt's store_job", async () => {
    await jobs.onReturn('db1', { ...ret('req', 'db1', 'first'), fun: 'test.echo', fun_args: ['first'] });
    await jobs.onReturn('db1', { ...ret('req', 'db1', 'second'), fun: 'test.echo', fun_args: ['second'] });
    const tags = fired.map((e) => e.tag);
    expect(tags).toEqual([expect.stringMatching(/^salt\/job\/\d{20}\/ret\/db1$/), expect.stringMatching(/^salt\/job\/\d{20}\/ret\/db1$/)]);
    const [first, second] = fired.map((e) => String(e.data.jid));
    expect(first).not.toBe(second);
    expect(await cache.getJob(first)).toMatchObject({ tgt: 'db1', tgt_type: 'glob', fun: 'test.echo', arg: ['first'], minions: ['db1'] });
    expect(await cache.getReturns(second)).toMatchObject({ db1: { return: 'second' } });
  });
});
