/**
 * `salt-run state.orchestrate` over the master functions: an orchestration SLS compiled from the
 * master's file_roots and run on the master, its `salt.function` and `salt.state` states
 * publishing jobs (to in-memory minions here) and judged by their returns as Salt's saltmod does.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MasterConfig } from '../../src/core/config';
import type { JobRunner, LocalJob } from '../../src/core/client/local-jobs';
import { KeyStore } from '../../src/core/master/key-store';
import { MasterFunctions } from '../../src/runners/master-functions';

const KEYS = resolve(__dirname, '../../..', 'shared/salt-wire/keys');
const pub = (name: string) => readFileSync(join(KEYS, `${name}.pub`), 'utf8').trim();
const MASTER = `${hostname()}_master`;

const dir = mkdtempSync(join(tmpdir(), 'brine-orchestrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What web1's state.sls answers: one file state that changed. */
const WEB_STATE = {
  'file_|-hello_|-/srv/hello_|-managed': {
    name: '/srv/hello',
    result: true,
    changes: { diff: 'New file' },
    comment: 'File updated',
    __run_num__: 0,
  },
};

const published: LocalJob[] = [];
/** web1 and db1 answer: test.ping True, state.sls web1's state, cmd.run of `exit 3` with retcode 3. */
const jobs: JobRunner = {
  async run(job) {
    published.push(job);
    const ids = job.tgt === '*' ? ['db1', 'web1'] : [String(job.tgt)];
    const answer = (id: string) => {
      if (job.fun === 'state.sls')
        return { id, return: id === 'web1' ? WEB_STATE : { 'x_|-x_|-x_|-run': { result: false, changes: {} } }, retcode: 0 };
      if (job.fun === 'cmd.run') return { id, return: '', retcode: 3 };
      return { id, return: true, retcode: 0 };
    };
    return { jid: '20261208000000000001', returns: ids.map(answer) };
  },
  async runAsync() {
    return null;
  },
  async *runBatch() {},
};

let fns: MasterFunctions;

beforeAll(async () => {
  const keys = new KeyStore({ pkiDir: join(dir, 'pki') });
  keys.ensureLayout();
  for (const id of ['web1', 'db1']) {
    keys.registerPending(id, pub(id));
    keys.accept([id]);
  }
  const roots = join(dir, 'srv');
  mkdirSync(join(roots, 'orch'), { recursive: true });
  writeFileSync(
    join(roots, 'orch', 'deploy.sls'),
    [
      'ping-all:',
      '  salt.function:',
      '    - name: test.ping',
      "    - tgt: '*'",
      'web:',
      '  salt.state:',
      '    - tgt: web1',
      '    - sls: [web, web.site]',
      '    - require:',
      '      - salt: ping-all',
      'done:',
      '  test.succeed_without_changes:',
      '    - require:',
      '      - salt: web',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(roots, 'orch', 'broken.sls'),
    ['exit-3:', '  salt.function:', '    - name: cmd.run', '    - tgt: web1', '    - arg:', '      - exit 3', ''].join('\n'),
  );
  writeFileSync(
    join(roots, 'orch', 'master.sls'),
    [
      'status:',
      '  salt.runner:',
      '    - name: manage.status',
      'keys:',
      '  salt.wheel:',
      '    - name: key.list',
      '    - match: accepted',
      '    - require:',
      '      - salt: status',
      'nope:',
      '  salt.runner:',
      '    - name: nosuch.runner',
      '',
    ].join('\n'),
  );
  writeFileSync(join(roots, 'orch', 'db.sls'), ['db:', '  salt.state:', '    - tgt: db1', '    - sls: db', ''].join('\n'));
  fns = await MasterFunctions.load({
    master: {
      pki_dir: join(dir, 'pki'),
      cachedir: join(dir, 'cache'),
      sock_dir: join(dir, 'sock'),
      module_dirs: [],
      plugin_dirs: [],
      user: 'root',
      timeout: 5,
      gather_job_timeout: 10,
      nodegroups: {},
      file_roots: { base: [roots] },
      pillar_roots: { base: [join(dir, 'pillar')] },
    } as unknown as MasterConfig,
    keys,
    jobs,
    logger: { debug: () => undefined, info: () => undefined, warning: () => undefined, error: () => undefined },
  });
});

const run = (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}) =>
  fns.runners.get(fun)!.call(args, kwargs, { user: 'root' }) as Promise<{
    data: Record<string, Record<string, Record<string, unknown>>>;
    outputter: string;
    retcode: number;
  }>;

describe('state.orchestrate', () => {
  it('runs the SLS on the master: salt.function and salt.state publish jobs, in requisite order, under the master id', async () => {
    published.length = 0;
    const ret = await run('state.orchestrate', ['orch.deploy']);
    expect(ret.outputter).toBe('highstate');
    expect(ret.retcode).toBe(0);
    const states = ret.data[MASTER];
    expect(states['salt_|-ping-all_|-test.ping_|-function']).toMatchObject({
      name: 'test.ping',
      result: true,
      changes: { ret: { db1: true, web1: true } },
      comment: 'Function ran successfully. Function test.ping ran on db1, web1.',
      __run_num__: 0,
    });
    expect(states['salt_|-web_|-web_|-state']).toMatchObject({
      result: true,
      changes: { out: 'highstate', ret: { web1: WEB_STATE } },
      comment: 'States ran successfully. Updating web1.',
      __run_num__: 1,
    });
    expect(states['test_|-done_|-done_|-succeed_without_changes']).toMatchObject({ result: true, __run_num__: 2 });
    expect(published.map((j) => [j.tgt, j.fun, j.arg])).toEqual([
      ['*', 'test.ping', []],
      ['web1', 'state.sls', ['web,web.site', { queue: false, __kwarg__: true }]],
    ]);
  });

  it('fails, with retcode 1, when a minion fails: a nonzero retcode, a failed state', async () => {
    const broken = await run('state.orch', ['orch.broken']);
    expect(broken.retcode).toBe(1);
    expect(broken.data[MASTER]['salt_|-exit-3_|-cmd.run_|-function']).toMatchObject({
      result: false,
      comment: 'Running function cmd.run failed on minions: web1 Function cmd.run ran on web1.',
    });
    const db = await run('state.orchestrate', ['orch.db']);
    expect(db.retcode).toBe(1);
    expect(db.data[MASTER]['salt_|-db_|-db_|-state']).toMatchObject({ result: false, comment: 'Run failed on minions: db1' });
  });

  it('test=True: salt.function says what it would run; salt.state passes test to the minions', async () => {
    published.length = 0;
    const ret = await run('state.orchestrate', ['orch.deploy'], { test: true });
    expect(ret.data[MASTER]['salt_|-ping-all_|-test.ping_|-function']).toMatchObject({
      result: null,
      comment: 'Function test.ping would be executed on target *',
    });
    expect(published.map((j) => [j.fun, j.arg])).toEqual([['state.sls', ['web,web.site', { test: true, queue: false, __kwarg__: true }]]]);
    // web1 answered changes in test mode: the state's result is None, as Salt's.
    expect(ret.data[MASTER]['salt_|-web_|-web_|-state'].result).toBeNull();
  });

  it('salt.runner and salt.wheel call the master functions with their keyword arguments; an unknown one fails the run', async () => {
    const ret = await run('state.orchestrate', ['orch.master']);
    expect(ret.retcode).toBe(1);
    const states = ret.data[MASTER];
    expect(states['salt_|-status_|-manage.status_|-runner']).toMatchObject({
      result: true,
      changes: { return: { up: ['db1', 'web1'], down: [] } },
      comment: "Runner function 'manage.status' executed.",
    });
    expect(states['salt_|-keys_|-key.list_|-wheel']).toMatchObject({
      result: true,
      changes: { return: { minions: ['db1', 'web1'] } },
      comment: "Wheel function 'key.list' executed.",
    });
    expect(states['salt_|-nope_|-nosuch.runner_|-runner']).toMatchObject({
      result: false,
      comment: "Runner function 'nosuch.runner' failed.",
      changes: { return: "Exception occurred in runner nosuch.runner: runner function 'nosuch.runner' is not available" },
    });
    const dry = await run('state.orchestrate', ['orch.master'], { test: true });
    expect(dry.data[MASTER]['salt_|-status_|-manage.status_|-runner']).toMatchObject({
      result: null,
      comment: "Runner function 'manage.status' would be executed.",
    });
    expect(dry.data[MASTER]['salt_|-keys_|-key.list_|-wheel']).toMatchObject({
      result: null,
      comment: "Wheel function 'key.list' would be executed.",
    });
  });

  it("answers Salt's compile error for an SLS that does not exist, with retcode 1", async () => {
    const ret = await run('state.orchestrate', ['orch.nope']);
    expect(ret).toEqual({
      data: { [MASTER]: ["No matching sls found for 'orch.nope' in env 'base'"] },
      outputter: 'highstate',
      retcode: 1,
    });
  });
});
