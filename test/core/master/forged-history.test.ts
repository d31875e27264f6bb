/**
 * An accepted minion cannot forge history: returns only for jobs published to it, once per
 * (jid, id), no replayed requests, and job events only under its own id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobCache, type JobCache, type JobCacheConfig } from '../../../src/core/master/job-cache';
import { ReplayGuard } from '../../../src/core/master/replay-guard';
import { encode } from '../../../src/core/protocol/msgpack';
import { MasterHarness, RawMinion, rawRequest } from '../../support/master-harness';

let h: MasterHarness;
let web1: RawMinion;
let web2: RawMinion;
let cache: JobCache;

async function publish(tgt: string): Promise<string> {
  const load = {
    cmd: 'publish',
    tgt,
    fun: 'test.ping',
    arg: [],
    key: h.rootKey(),
    tgt_type: 'glob',
    ret: '',
    jid: '',
    kwargs: {},
    user: 'root',
  };
  const reply = (await rawRequest(h.address, encode({ enc: 'clear', load, version: 3 }))) as { load: { jid: string } };
  return reply.load.jid;
}

const ret = (jid: string) => ({ cmd: '_return', success: true, return: true, retcode: 0, jid, fun: 'test.ping', fun_args: [] });

beforeAll(async () => {
  h = await MasterHarness.start({ auto_accept: true });
  web1 = new RawMinion('web1', h.address);
  web2 = new RawMinion('web2', h.address);
  expect(await web1.signIn()).toBe('accepted');
  expect(await web2.signIn()).toBe('accepted');
  cache = await openJobCache({ cachedir: h.settings.cachedir } as unknown as JobCacheConfig);
});
afterAll(async () => {
  await cache.close();
  await h.stop();
});

describe('returns', () => {
  it('are stored only for a jid the master published to that minion', async () => {
    const jid = await publish('web1');
    await web1.send(ret(jid));
    await web2.send(ret(jid));
    await web1.send(ret('20990101000000000000'));
    expect(Object.keys(await cache.getReturns(jid))).toEqual(['web1']);
    expect(await cache.getReturns('20990101000000000000')).toEqual({});
    expect(h.log).toContain(`Dropped a return from web2 for job ${jid}, which this master did not publish to web2`);
  });

  it('a replayed _return is refused with "bad load"', async () => {
    const jid = await publish('web1');
    const req = web1.build(ret(jid));
    expect(await web1.exchange(req)).toBeNull();
    await expect(web1.exchange(req)).rejects.toMatchObject({ code: 'MASTER_BAD_LOAD' });
    expect(h.log).toContain('its nonce was already used');
  });

  it('a second return for the same (jid, id) is dropped: the first stays', async () => {
    const jid = await publish('web1');
    await web1.send(ret(jid));
    await web1.send({ ...ret(jid), return: 'forged' });
    expect((await cache.getReturns(jid)).web1).toMatchObject({ return: true });
    expect(h.log).toContain(`Dropped a repeated return from web1 for job ${jid}`);
  });

  it('a request whose ts is outside request_server_ttl is refused', async () => {
    const jid = await publish('web1');
    const req = web1.build(ret(jid), { ts: Math.floor(Date.now() / 1000) - 3600 });
    await expect(web1.exchange(req)).rejects.toMatchObject({ code: 'MASTER_BAD_LOAD' });
    expect(await cache.getReturns(jid)).toEqual({});
  });
});

describe('_minion_event', () => {
  it("under salt/job/ is fired only with the sender's own id", async () => {
    const jid = await publish('web1');
    await web1.send({ cmd: '_minion_event', tag: `salt/job/${jid}/ret/evil`, data: { return: null }, pretag: null });
    await web1.send({ cmd: '_minion_event', events: [{ tag: `salt/job/${jid}/ret/web2`, data: {} }] });
    await web1.send({ cmd: '_minion_event', tag: `salt/job/${jid}/prog/web1/0`, data: {}, pretag: null });
    expect(h.log).toContain(`Dropped event salt/job/${jid}/ret/evil from web1`);
    expect(h.log).toContain(`Dropped event salt/job/${jid}/ret/web2 from web1`);
    expect(h.log).not.toContain(`Dropped event salt/job/${jid}/prog/web1/0`);
  });
});

describe('a replayed _minion_event', () => {
  it('is refused with "bad load"', async () => {
    const req = web1.build({ cmd: '_minion_event', tag: 'custom/replayed', data: {}, pretag: null });
    expect(await web1.exchange(req)).toBeDefined();
    await expect(web1.exchange(req)).rejects.toMatchObject({ code: 'MASTER_BAD_LOAD' });
  });
});

describe('ReplayGuard', () => {
  it('forgets nonces once their ts is stale (plus at most a quarter of the window)', () => {
    let now = 1_000_000_000;
    const guard = new ReplayGuard(60, () => now);
    const ts = now / 1000;
    expect(guard.check('web1', 'n1', ts)).toBeUndefined();
    expect(guard.check('web1', 'n1', ts)).toMatch(/already used/);
    expect(guard.check('web2', 'n1', ts)).toBeUndefined();
    now += 61_000;
    expect(guard.check('web1', 'n1', ts)).toMatch(/request_server_ttl/);
    expect(guard.size).toBe(2);
    now += 15_000;
    expect(guard.check('web1', 'n2', now / 1000)).toBeUndefined();
    expect(guard.size).toBe(1);
    expect(new ReplayGuard(0).check('x', 'n', 0)).toBeUndefined();
  });
});
