/**
 * The master job cache kept by a returner: which of its functions are called, with what, and
 * what a missing one does (Salt's salt/master.py, salt/utils/job.py, salt/runners/jobs.py).
 */
import { describe, expect, it } from 'vitest';
import { ReturnerJobCache, type JobCacheReturner } from '../../../../src/core/master/job-cache';

const JID = '20261204050102123456';

/** A returner of the given functions, recording each call; `impl` answers them. */
function fakeReturner(fns: Record<string, (...args: unknown[]) => unknown>, params: Record<string, string[]> = {}) {
  const calls: Array<{ fn: string; args: unknown[]; kwargs?: Record<string, unknown> }> = [];
  const returner: JobCacheReturner = {
    name: 'memo',
    has: (fn) => fn in fns,
    takes: (fn, param) => (params[fn] ?? []).includes(param),
    call: async (fn, args, kwargs) => {
      calls.push({ fn, args, ...(kwargs ? { kwargs } : {}) });
      return fns[fn](...args, kwargs);
    },
    close: async () => undefined,
  };
  return { returner, calls };
}

function logLines(): { error(m: string): void; lines: string[] } {
  const lines: string[] = [];
  return { error: (m) => lines.push(m), lines };
}

const JOB = {
  jid: JID,
  tgt: '*',
  tgt_type: 'glob',
  fun: 'test.ping',
  arg: [],
  user: 'root',
  minions: ['web1', 'web2'],
  started: new Date(),
};
const RET = { jid: JID, id: 'web1', fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true, at: new Date() };

describe('publishing through a returner', () => {
  it('calls prep_jid with the jid, then save_load with the load and the minions', async () => {
    const { returner, calls } = fakeReturner(
      { prep_jid: () => JID, save_load: () => undefined },
      { save_load: ['jid', 'load', 'minions'] },
    );
    await new ReturnerJobCache(returner, logLines()).saveJob({ ...JOB, metadata: { ticket: 7 } });
    expect(calls).toEqual([
      { fn: 'prep_jid', args: [], kwargs: { nocache: false, passed_jid: JID } },
      {
        fn: 'save_load',
        args: [
          JID,
          { jid: JID, tgt: '*', tgt_type: 'glob', fun: 'test.ping', arg: [], user: 'root', metadata: { ticket: 7 } },
          ['web1', 'web2'],
        ],
      },
    ]);
  });

  it('gives the minions to save_minions when save_load takes none', async () => {
    const { returner, calls } = fakeReturner({ prep_jid: () => JID, save_load: () => undefined, save_minions: () => undefined });
    await new ReturnerJobCache(returner, logLines()).saveJob(JOB);
    expect(calls.map((c) => c.fn)).toEqual(['prep_jid', 'save_load', 'save_minions']);
    expect(calls[1].args).toHaveLength(2);
    expect(calls[2].args).toEqual([JID, ['web1', 'web2']]);
  });

  it('without prep_jid the publication fails with one line naming the returner', async () => {
    const { returner } = fakeReturner({ save_load: () => undefined });
    await expect(new ReturnerJobCache(returner, logLines()).saveJob(JOB)).rejects.toMatchObject({
      code: 'JOB_NOT_ALLOCATED',
      message: "Failed to allocate a jid: the master_job_cache returner 'memo' has no prep_jid function",
    });
  });

  it("without save_load: Salt's critical line, and the job goes on", async () => {
    const log = logLines();
    const { returner } = fakeReturner({ prep_jid: () => JID });
    await new ReturnerJobCache(returner, log).saveJob(JOB);
    expect(log.lines).toEqual(['The specified returner used for the master job cache "memo" does not have a save_load function!']);
  });

  it('a save_load that throws is logged with the returner and the function', async () => {
    const log = logLines();
    const { returner } = fakeReturner({
      prep_jid: () => JID,
      save_load: () => {
        throw new Error('disk full');
      },
    });
    await new ReturnerJobCache(returner, log).saveJob(JOB);
    expect(log.lines).toEqual(['The memo returner failed in save_load: disk full']);
  });
});

describe('returns through a returner', () => {
  it("calls returner(ret) with Salt's return load, and drops a repeated return", async () => {
    const { returner, calls } = fakeReturner({ returner: () => undefined });
    const cache = new ReturnerJobCache(returner, logLines());
    expect(await cache.saveReturns([RET, { ...RET, id: 'web2', out: 'nested' }, RET])).toEqual([true, true, false]);
    expect(calls).toEqual([
      {
        fn: 'returner',
        args: [{ cmd: '_return', id: 'web1', jid: JID, fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true }],
      },
      {
        fn: 'returner',
        args: [
          { cmd: '_return', id: 'web2', jid: JID, fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true, out: 'nested' },
        ],
      },
    ]);
  });

  it("without returner: Salt's error line; the return is still answered", async () => {
    const log = logLines();
    const { returner } = fakeReturner({});
    expect(await new ReturnerJobCache(returner, log).saveReturn(RET)).toBe(true);
    expect(log.lines).toEqual(["Returner 'memo' does not support function returner"]);
  });
});

describe('reading jobs through a returner', () => {
  const LOAD = { jid: JID, tgt: 'web*', tgt_type: 'glob', fun: 'test.echo', arg: ['hi'], user: 'ops', Minions: ['web1'] };

  it('get_load gives the job, {} none', async () => {
    const { returner } = fakeReturner({ get_load: (jid) => (jid === JID ? LOAD : {}) });
    const cache = new ReturnerJobCache(returner, logLines());
    expect(await cache.getJob(JID)).toMatchObject({ jid: JID, tgt: 'web*', fun: 'test.echo', arg: ['hi'], user: 'ops', minions: ['web1'] });
    expect(await cache.getJob('20261204050102999999')).toBeUndefined();
  });

  it('get_jid gives the returns, as local_cache ({return, out}) or as full returns', async () => {
    const { returner } = fakeReturner({
      get_jid: () => ({
        web1: { return: 'hi', out: 'nested' },
        web2: { return: false, retcode: 1, success: false, _stamp: '2026-12-04T05:01:03.000000' },
      }),
    });
    const returns = await new ReturnerJobCache(returner, logLines()).getReturns(JID);
    expect(returns.web1).toMatchObject({ return: 'hi', retcode: 0, success: true, out: 'nested' });
    expect(returns.web2).toMatchObject({ return: false, retcode: 1, success: false, at: new Date('2026-12-04T05:01:03Z') });
  });

  it("get_jids in Salt's format_jid_instance shape, filtered as the runner asks", async () => {
    const later = '20261204060000000000';
    const { returner } = fakeReturner({
      get_jids: () => ({
        [later]: {
          Function: 'state.apply',
          Arguments: [],
          Target: 'db1',
          'Target-type': 'glob',
          User: 'root',
          StartTime: '2026, Dec 04 06:00:00.000000',
        },
        [JID]: LOAD,
      }),
    });
    const cache = new ReturnerJobCache(returner, logLines());
    expect((await cache.listJobs()).map((j) => [j.jid, j.fun, j.tgt])).toEqual([
      [JID, 'test.echo', 'web*'],
      [later, 'state.apply', 'db1'],
    ]);
    expect((await cache.listJobs({ fun: ['state.*'] })).map((j) => j.jid)).toEqual([later]);
    expect((await cache.listJobs({ startedTo: new Date('2026-12-04T05:30:00Z') })).map((j) => j.jid)).toEqual([JID]);
  });

  it('a missing get_* function is one error naming the returner and the function', async () => {
    const cache = new ReturnerJobCache(fakeReturner({}).returner, logLines());
    await expect(cache.listJobs()).rejects.toThrow(/^Returner 'memo' does not support function get_jids$/);
    await expect(cache.getJob(JID)).rejects.toThrow(/^Returner 'memo' does not support function get_load$/);
    await expect(cache.getReturns(JID)).rejects.toThrow(/^Returner 'memo' does not support function get_jid$/);
  });

  it('clean calls clean_old_jobs when the returner has it, and cleans nothing otherwise', async () => {
    const { returner, calls } = fakeReturner({ clean_old_jobs: () => 3 });
    expect(await new ReturnerJobCache(returner, logLines()).clean()).toBe(3);
    expect(calls).toEqual([{ fn: 'clean_old_jobs', args: [] }]);
    expect(await new ReturnerJobCache(fakeReturner({}).returner, logLines()).clean()).toBe(0);
  });
});
