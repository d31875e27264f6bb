/**
 * Jobs on the real binaries: the salt CLI's wait (find_job past the timeout, [No response] and
 * [Not connected]), batch mode's sliding window, --async with jobs.lookup_jid across a master
 * killed with -9, jobs.active, the event bus through salt-run state.event, and retention.
 * Nothing waits on a clock: each step waits for a log line, an event or a process exit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Cluster, Daemon, REPO } from '../support/cluster';

const IDS = Array.from({ length: 10 }, (_, i) => `m${String(i).padStart(2, '0')}`);

function jidOf(text: string): string {
  const m = /(\d{20})/.exec(text);
  if (!m) throw new Error(`no jid in: ${text}`);
  return m[1];
}

/** `salt-run state.event ARGS...` kept running; its output is read like a daemon's log. */
function eventStream(cluster: Cluster, ...args: string[]): Daemon {
  const child = spawn(process.execPath, [join(REPO, 'bin', 'salt-run'), '-c', cluster.masterDir, 'state.event', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Daemon('state.event', child);
}

/**
 * Makes sure the stream's subscription is live: pings until the stream shows one of the pings
 * (a retry on an observed event, not a sleep), for up to 30 s. Bounded by time, not by a count of
 * pings: a ping takes 150 ms, and under CI's load salt-run took longer than 20 of them to start.
 */
async function untilListening(cluster: Cluster, stream: Daemon, minion: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ping = await cluster.salt(minion, 'test.ping', '--show-jid');
    const jid = jidOf(ping.stdout);
    if (stream.log.includes(`salt/job/${jid}/`)) return;
  }
  throw new Error(`state.event never showed a job:\n${stream.log}`);
}

/** The event lines (tag, data) of a non-pretty stream. */
function events(stream: Daemon): Array<{ tag: string; data: Record<string, unknown> }> {
  return stream.log
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => {
      const [tag, json] = l.split('\t');
      return { tag, data: JSON.parse(json) as Record<string, unknown> };
    });
}

describe('ten minions', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.create({ gather_job_timeout: 3 });
    await cluster.startMaster();
    await cluster.startAccepted(IDS.map((id) => ({ id })));
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('batch -b 3 runs on never more than 3 at once, starts the next as one finishes, and all 10 return', async () => {
    const stream = eventStream(cluster, 'salt/job/*');
    try {
      await untilListening(cluster, stream, 'm00');
      const res = await cluster.salt('*', 'test.sleep', '1', '-b', '3');
      expect(res.code).toBe(0);
      const runs = res.stdout.split('\n').filter((l) => l.startsWith('Executing run on'));
      // A sliding window: three at first, then one new minion per finished one.
      expect(runs[0]).toMatch(/^Executing run on \['m\d\d', 'm\d\d', 'm\d\d'\]$/);
      expect(runs.slice(1)).toHaveLength(7);
      for (const line of runs.slice(1)) expect(line).toMatch(/^Executing run on \['m\d\d'\]$/);
      for (const id of IDS) expect(res.stdout).toContain(`${id}:\n    True`);
      expect(res.stdout).toContain('retcode:\n    0');

      // Replay the bus: a minion counts as running from its job's `new` to its `ret` (an upper
      // bound of the real overlap, since the master fires `new` before publishing).
      const batchJids = new Set<string>();
      for (const id of IDS) await stream.waitFor(new RegExp(`/ret/${id}\t[^\n]*"fun": "test\\.sleep"`));
      let running = 0;
      let most = 0;
      const returned = new Set<string>();
      for (const ev of events(stream)) {
        if (ev.data.fun !== 'test.sleep') continue;
        if (ev.tag.endsWith('/new')) {
          batchJids.add(String(ev.data.jid));
          running += (ev.data.minions as string[]).length;
        } else if (ev.tag.includes('/ret/') && batchJids.has(String(ev.data.jid))) {
          running -= 1;
          returned.add(String(ev.data.id));
        }
        most = Math.max(most, running);
      }
      expect(most).toBeLessThanOrEqual(3);
      expect(most).toBe(3);
      expect([...returned].sort()).toEqual(IDS);
    } finally {
      await stream.stop();
    }
  }, 60_000);

  it('keeps a job alive past the timeout with find_job: salt -t 1 on test.sleep 4 gets the result', async () => {
    const res = await cluster.salt('-t', '1', 'm03', 'test.sleep', '4');
    expect(res).toMatchObject({ code: 0, stdout: 'm03:\n    True\n' });
    expect(cluster.master!.log).toContain('Published command saltutil.find_job');
  }, 30_000);

  it('publishes with --async, shows the job in jobs.active while it runs, then lookup_jid, list_jobs and print_job', async () => {
    // Long enough that jobs.active (a whole salt-run process) still finds it on busy CI cores.
    const started = await cluster.salt('m04', 'test.sleep', '6', '--async');
    expect(started.stdout).toMatch(/^Executed command with job ID: \d{20}\n$/);
    const jid = jidOf(started.stdout);
    await cluster.minions.get('m04')!.waitFor(`Executing command test.sleep with jid ${jid}`);

    const active = await cluster.run('salt-run', ['jobs.active', '--out', 'json']);
    expect(active.code).toBe(0);
    const running = JSON.parse(active.stdout) as Record<string, Record<string, unknown>>;
    expect(running[jid], active.stdout + active.stderr).toMatchObject({
      Function: 'test.sleep',
      Arguments: [6],
      Target: 'm04',
      'Target-type': 'glob',
      Returned: [],
    });
    expect(running[jid].Running).toEqual([{ m04: expect.any(Number) }]);

    await cluster.master!.waitFor(`Got return from m04 for job ${jid}`);
    const lookup = await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--out', 'json']);
    expect(JSON.parse(lookup.stdout)).toEqual({ m04: true });
    const nested = await cluster.run('salt-run', ['jobs.lookup_jid', jid]);
    expect(nested.stdout).toBe('m04:\n    True\n');

    const listed = await cluster.run('salt-run', ['jobs.list_jobs', 'search_function=test.sleep', 'search_target=m04', '--out', 'json']);
    expect(JSON.parse(listed.stdout)[jid]).toMatchObject({ Function: 'test.sleep', Target: 'm04', User: expect.any(String) });
    const none = await cluster.run('salt-run', ['jobs.list_jobs', 'search_function=cmd.*', '--out', 'json']);
    expect(JSON.parse(none.stdout)[jid]).toBeUndefined();
    const printed = await cluster.run('salt-run', ['jobs.print_job', jid, '--out', 'json']);
    expect(JSON.parse(printed.stdout)[jid]).toMatchObject({ Function: 'test.sleep', Minions: ['m04'], Result: { m04: { return: true } } });
  }, 40_000);

  it('state.event shows a job as new, then publish and one ret per minion; pretty=True indents by 4', async () => {
    const stream = eventStream(cluster, 'salt/job/*');
    const pretty = eventStream(cluster, 'salt/job/*/ret/m05', 'pretty=True');
    try {
      await untilListening(cluster, stream, 'm05');
      await untilListening(cluster, pretty, 'm05');
      const res = await cluster.salt('-L', 'm05,m06', 'test.echo', 'hello', '--show-jid', '--metadata', '{"ticket": "OPS-9"}');
      const jid = jidOf(res.stdout);
      await stream.waitFor(new RegExp(`ret/m05[\\s\\S]*ret/m06|ret/m06[\\s\\S]*ret/m05`.replace(/ret\//g, `salt/job/${jid}/ret/`)));
      const tags = events(stream)
        .filter((e) => e.tag.startsWith(`salt/job/${jid}/`))
        .map((e) => e.tag);
      expect(tags[0]).toBe(`salt/job/${jid}/new`);
      expect(tags.slice(1).sort()).toEqual([`salt/job/${jid}/publish`, `salt/job/${jid}/ret/m05`, `salt/job/${jid}/ret/m06`]);
      const ret = events(stream).find((e) => e.tag === `salt/job/${jid}/ret/m05`)!;
      expect(ret.data).toMatchObject({ cmd: '_return', id: 'm05', jid, fun: 'test.echo', return: 'hello', retcode: 0, success: true });
      // --metadata: the minions return it, and the job cache keeps it for the jobs runner.
      expect(ret.data.metadata).toEqual({ ticket: 'OPS-9' });
      const job = JSON.parse((await cluster.run('salt-run', ['jobs.list_job', jid, '--out', 'json'])).stdout);
      expect(job.Metadata).toEqual({ ticket: 'OPS-9' });
      const found = await cluster.run('salt-run', ['jobs.list_jobs', 'search_metadata={"ticket": "OPS-9"}', '--out', 'json']);
      expect(Object.keys(JSON.parse(found.stdout))).toEqual([jid]);

      await pretty.waitFor(`salt/job/${jid}/ret/m05\t{\n    "_stamp": `);
      expect(pretty.log).toContain('\n    "return": "hello",\n');
    } finally {
      await stream.stop();
      await pretty.stop();
    }
  }, 40_000);

  it("state.event shows a minion's start events with Salt's data", async () => {
    const stream = eventStream(cluster, 'salt/*');
    try {
      await untilListening(cluster, stream, 'm01');
      await cluster.startMinion({ id: 'late-start', config: { random_reauth_delay: 0 } }, 'cached the public key');
      await cluster.saltKey('-a', 'late-start', '-y');
      await stream.waitFor('salt/minion/late-start/start');
      const start = events(stream).find((e) => e.tag === 'salt/minion/late-start/start')!;
      expect(start.data).toMatchObject({ cmd: '_minion_event', id: 'late-start', tag: 'salt/minion/late-start/start', pretag: null });
      // time.asctime(), as a Salt minion sends it (../shared/salt-wire: 'Minion web1 started at Wed Dec  2 12:56:12 2026').
      expect(start.data.data).toMatch(
        /^Minion late-start started at (?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) [A-Z][a-z]{2} [ 123]\d \d\d:\d\d:\d\d \d{4}$/,
      );
      expect(start.data).not.toHaveProperty('tok');
    } finally {
      await stream.stop();
      await cluster.minions.get('late-start')?.stop();
    }
  }, 40_000);
});

describe('a stopped minion and a restarted master', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.create({ gather_job_timeout: 2 });
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'web1', config: { random_reauth_delay: 0 } }, { id: 'web2' }]);
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('tells [No response] while the master still has the session, [Not connected] once it has none, and lookup_jid survives kill -9', async () => {
    const done = await cluster.salt('web1', 'test.echo', 'kept', '--show-jid');
    const jid = jidOf(done.stdout);
    expect(done.stdout).toContain('web1:\n    kept');

    await cluster.minions.get('web2')!.stop();
    const before = await cluster.salt('-t', '1', '*', 'test.ping');
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('web1:\n    True\n');
    expect(before.stdout).toContain('web2:\n    Minion did not return. [No response]');

    const hidden = await cluster.salt('-t', '1', '*', 'test.ping', '--hide-timeout', '--summary');
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).not.toContain('Minion did not return');
    expect(hidden.stdout).toContain('# of minions returned: 1\n# of minions that did not return: 0\n');
    // As Salt: no summary after an --out, whose output stays parseable.
    const json = await cluster.salt('-t', '1', '*', 'test.ping', '--hide-timeout', '--summary', '--out', 'json', '--static');
    expect(JSON.parse(json.stdout)).toEqual({ web1: true });

    await cluster.restartMaster();
    // web1 notices its publisher came back and signs in again; web2, stopped, never does.
    await cluster.minions.get('web1')!.waitFor(/publisher is back[\s\S]*Authentication with master successful/, 30_000);
    const after = await cluster.salt('-t', '1', '*', 'test.ping', '--summary', '-v');
    expect(after.stdout).toContain('web1:\n    True\n');
    expect(after.stdout).toContain('web2:\n    Minion did not return. [Not connected]');
    expect(after.stdout).toContain('# of minions that did not return: 1\n# of minions with errors: 0\nMinions not connected: web2\n');

    const lookup = await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--out', 'json']);
    expect(JSON.parse(lookup.stdout)).toEqual({ web1: 'kept' });
  }, 60_000);

  it('fires salt/key when salt-key deletes a key', async () => {
    const stream = eventStream(cluster, 'salt/*');
    try {
      await untilListening(cluster, stream, 'web1');
      const del = await cluster.saltKey('-d', 'web2', '-y');
      expect(del.code).toBe(0);
      await stream.waitFor('salt/key\t');
      const ev = events(stream).find((e) => e.tag === 'salt/key')!;
      expect(ev.data).toMatchObject({ id: 'web2', act: 'delete', result: true });
    } finally {
      await stream.stop();
    }
  }, 30_000);
});

describe('retention', () => {
  it('forgets a job older than keep_jobs_seconds once the cleaner (every loop_interval) has run', async () => {
    // 8 s: long enough that the first lookup, two CLI starts after the job, sees it on a loaded machine.
    const cluster = await Cluster.create({ keep_jobs_seconds: 8, loop_interval: 1 });
    try {
      await cluster.startMaster();
      await cluster.startAccepted([{ id: 'old1' }]);
      const res = await cluster.salt('old1', 'test.ping', '--show-jid');
      const jid = jidOf(res.stdout);
      const fresh = await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--out', 'json']);
      expect(JSON.parse(fresh.stdout)).toEqual({ old1: true });
      await cluster.master!.waitFor(/Removed [1-9]\d* jobs older than keep_jobs/, 40_000);
      const gone = await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--out', 'json']);
      expect(JSON.parse(gone.stdout)).toEqual({});
    } finally {
      await cluster.stop();
    }
  }, 90_000);
});
