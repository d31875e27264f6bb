import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJobCache } from '../../src/core/master/job-cache';
import { JOB_RUNNERS } from '../../src/runners/jobs';
import { parseCliArgs } from '../../src/cli/args';
import { formatOutput } from '../../src/cli/output';
import { codeOfAsync as codeOf } from '../support/errors';

const JID = '20261202131309576618';
const JID2 = '20261202131325445421';
let cache: SqliteJobCache;

const run = (fun: string, words: string[] = [], kwargs: Record<string, unknown> = {}) =>
  JOB_RUNNERS[fun]({ cache, arg: parseCliArgs(words), kwargs });

beforeEach(() => {
  cache = new SqliteJobCache(':memory:');
  cache.saveJob({
    jid: JID,
    tgt: '*',
    tgt_type: 'glob',
    fun: 'test.ping',
    arg: [],
    user: 'root',
    minions: ['web2', 'web1', 'db1'],
    started: new Date('2026-12-02T13:13:09.576Z'),
  });
  cache.saveReturn({
    jid: JID,
    id: 'web1',
    fun: 'test.ping',
    fun_args: [],
    return: true,
    retcode: 0,
    success: true,
    at: new Date('2026-12-02T13:13:09.700Z'),
  });
  cache.saveReturn({
    jid: JID,
    id: 'web2',
    fun: 'test.ping',
    fun_args: [],
    return: true,
    retcode: 0,
    success: true,
    at: new Date('2026-12-02T13:13:09.800Z'),
  });
  cache.saveJob({
    jid: JID2,
    tgt: 'db*',
    tgt_type: 'glob',
    fun: 'cmd.run',
    user: 'sudo_alice',
    minions: ['db1'],
    started: new Date('2026-12-02T13:13:25.445Z'),
    arg: ['uptime', { __kwarg__: true, metadata: { ticket: 'OPS-1' } }],
  });
  cache.saveReturn({
    jid: JID2,
    id: 'db1',
    fun: 'cmd.run',
    fun_args: ['uptime'],
    return: ' 13:13:25 up 1 day',
    retcode: 0,
    success: true,
    at: new Date('2026-12-02T13:13:26Z'),
  });
});
afterEach(() => cache.close());

describe('jobs.lookup_jid', () => {
  it('gives {minion: return} as Salt does', async () => {
    expect(await run('jobs.lookup_jid', [JID])).toEqual({ web1: true, web2: true });
  });

  it('missing=True adds the targeted minions that did not return; returned=False leaves out those that did', async () => {
    expect(await run('jobs.lookup_jid', [JID, 'missing=True'])).toEqual({ web1: true, web2: true, db1: 'Minion did not return' });
    expect(await run('jobs.lookup_jid', [JID, 'missing=True', 'returned=False'])).toEqual({ db1: 'Minion did not return' });
  });

  it('prints with the outputters as Salt does', async () => {
    expect(formatOutput('nested', await run('jobs.lookup_jid', [JID]))).toBe('web1:\n    True\nweb2:\n    True\n');
    expect(formatOutput('json', await run('jobs.lookup_jid', [JID2]))).toBe('{\n    "db1": " 13:13:25 up 1 day"\n}\n');
  });

  it('names the outputter the minion asked for, as {outputter, data}', async () => {
    cache.saveReturn({
      jid: '20261202140000000000',
      id: 'web1',
      fun: 'state.apply',
      fun_args: [],
      return: { s: 1 },
      retcode: 0,
      success: true,
      at: new Date(),
      out: 'highstate',
    });
    expect(await run('jobs.lookup_jid', ['20261202140000000000'])).toEqual({ outputter: 'highstate', data: { web1: { s: 1 } } });
  });

  it('an unknown jid gives {}', async () => {
    expect(await run('jobs.lookup_jid', ['20000101000000000000'])).toEqual({});
  });

  it('takes the jid as a keyword too, and refuses a missing jid or stray arguments', async () => {
    expect(await JOB_RUNNERS['jobs.lookup_jid']({ cache, arg: [], kwargs: { jid: JID } })).toEqual({ web1: true, web2: true });
    expect(await codeOf(() => run('jobs.lookup_jid'))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.lookup_jid', [JID, 'bogus=1']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.lookup_jid', [JID, 'a', 'b', 'c', 'd', 'e']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.lookup_jid', [JID, 'missing=maybe']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.lookup_jid', [JID, 'ext_source=mysql']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => JOB_RUNNERS['jobs.lookup_jid']({ cache, arg: [JID], kwargs: { jid: JID } }))).toBe('BAD_RUNNER_ARG');
  });
});

describe('jobs.list_job and jobs.print_job', () => {
  it('list_job: the job, its minions (sorted) and every return', async () => {
    const out = await run('jobs.list_job', [JID]);
    expect(out).toEqual({
      jid: JID,
      Function: 'test.ping',
      Arguments: [],
      Target: '*',
      'Target-type': 'glob',
      User: 'root',
      Minions: ['db1', 'web1', 'web2'],
      StartTime: '2026, Dec 02 13:13:09.576618',
      Result: { web1: { return: true, retcode: 0, success: true }, web2: { return: true, retcode: 0, success: true } },
    });
    expect(Object.keys(out as object)).toEqual([
      'jid',
      'Function',
      'Arguments',
      'Target',
      'Target-type',
      'User',
      'Minions',
      'StartTime',
      'Result',
    ]);
  });

  it('list_job carries the job metadata', async () => {
    expect(await run('jobs.list_job', [JID2])).toMatchObject({
      Metadata: { ticket: 'OPS-1' },
      User: 'sudo_alice',
      Arguments: ['uptime', { __kwarg__: true, metadata: { ticket: 'OPS-1' } }],
    });
  });

  it('print_job: the same under the jid', async () => {
    const out = (await run('jobs.print_job', [JID])) as Record<string, Record<string, unknown>>;
    expect(Object.keys(out)).toEqual([JID]);
    expect(out[JID].Function).toBe('test.ping');
    expect(out[JID].Result).toEqual({
      web1: { return: true, retcode: 0, success: true },
      web2: { return: true, retcode: 0, success: true },
    });
    expect('jid' in out[JID]).toBe(false);
  });

  it("an unknown jid gives Salt's error entry", async () => {
    expect(await run('jobs.list_job', ['20000101000000000000'])).toEqual({
      jid: '20000101000000000000',
      Error: 'Cannot contact returner or no job with this jid',
      StartTime: '2000, Jan 01 00:00:00.000000',
      Result: {},
    });
    expect(await run('jobs.print_job', ['20000101000000000000'])).toEqual({
      '20000101000000000000': {
        Error: 'Cannot contact returner or no job with this jid',
        StartTime: '2000, Jan 01 00:00:00.000000',
        Result: {},
      },
    });
  });
});

describe('jobs.list_jobs', () => {
  it("lists every job in Salt's shape", async () => {
    expect(await run('jobs.list_jobs')).toEqual({
      [JID]: {
        Function: 'test.ping',
        Arguments: [],
        Target: '*',
        'Target-type': 'glob',
        User: 'root',
        StartTime: '2026, Dec 02 13:13:09.576618',
      },
      [JID2]: {
        Function: 'cmd.run',
        Arguments: ['uptime', { __kwarg__: true, metadata: { ticket: 'OPS-1' } }],
        Target: 'db*',
        'Target-type': 'glob',
        User: 'sudo_alice',
        Metadata: { ticket: 'OPS-1' },
        StartTime: '2026, Dec 02 13:13:25.445421',
      },
    });
  });

  it('filters by function and target (globs, lists, comma-separated)', async () => {
    const jids = async (words: string[]) => Object.keys((await run('jobs.list_jobs', words)) as object);
    expect(await jids(['search_function=test.*'])).toEqual([JID]);
    expect(await jids(['search_function=test.*,cmd.run'])).toEqual([JID, JID2]);
    expect(await jids(['search_function=["cmd.*"]'])).toEqual([JID2]);
    expect(await jids(['search_target=db*'])).toEqual([JID2]);
    expect(await jids(['search_target=nomatch'])).toEqual([]);
    expect(await jids(['search_metadata={"ticket": "OPS-1"}'])).toEqual([JID2]);
    expect(await jids(['search_metadata={"ticket": "OPS-2"}'])).toEqual([]);
  });

  it("filters by start and end time, in Salt's and ISO forms (UTC when no zone)", async () => {
    const jids = async (words: string[]) => Object.keys((await run('jobs.list_jobs', words)) as object);
    expect(await jids(['start_time=2026, Dec 02 13:13:20'])).toEqual([JID2]);
    expect(await jids(['end_time=2026, Dec 02 13:13'])).toEqual([]);
    expect(await jids(['start_time=2026-12-02 13:13:00', 'end_time=2026-12-02T13:13:10Z'])).toEqual([JID]);
    expect(await jids(['end_time=2026-12-02T14:13:10+01:00'])).toEqual([JID]);
    expect(await jids([`start_time=${JID2}`])).toEqual([JID2]);
  });

  it('refuses times and metadata it cannot read', async () => {
    expect(await codeOf(() => run('jobs.list_jobs', ['start_time=yesterday-ish']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.list_jobs', ['start_time=2026-02-30']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.list_jobs', ['end_time=2026, Foo 02 10:00']))).toBe('BAD_RUNNER_ARG');
    expect(await codeOf(() => run('jobs.list_jobs', ['search_metadata=[1]']))).toBe('BAD_RUNNER_ARG');
  });
});
