/**
 * A mixed fleet: one brine master, two real Salt 3007.10 minions and two brine minions, driven with
 * brine's CLI. Every wait is on a log line or a command's answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';
import { describeWithSalt, json, type SaltDaemon, startSalt, writeSaltMinionConfig } from '../support/salt-ref';

const ALL = ['bm1', 'bm2', 'py1', 'py2'];

describeWithSalt('mixed fleet: brine master, two Salt minions, two brine minions', () => {
  let cluster: Cluster;
  const py: SaltDaemon[] = [];

  beforeAll(async () => {
    cluster = await Cluster.create({ auto_accept: true, timeout: 20 });
    await cluster.startMaster();
    for (const [id, role] of [
      ['py1', 'web'],
      ['py2', 'db'],
    ]) {
      py.push(startSalt(id, 'salt-minion', writeSaltMinionConfig(cluster.root, id, cluster.retPort, { grains: { role, kind: 'python' } })));
    }
    await Promise.all([
      cluster.startMinion({ id: 'bm1', grains: { role: 'web', kind: 'brine' } }, 'is ready'),
      cluster.startMinion({ id: 'bm2', grains: { role: 'db', kind: 'brine' } }, 'is ready'),
      ...py.map((d) => d.waitFor('Minion is ready to receive requests!', 60_000)),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(py.map((d) => d.stop()));
    await cluster?.stop();
  });

  it("salt '*' test.ping answers from all four", async () => {
    const res = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
    expect(json(res.stdout)).toEqual({ bm1: true, bm2: true, py1: true, py2: true });
  });

  it('-G targets span Salt and brine minions', async () => {
    const web = json((await cluster.salt('-G', 'role:web', 'test.ping', '--out', 'json', '--static')).stdout);
    expect(Object.keys(web).sort()).toEqual(['bm1', 'py1']);
    const compound = json((await cluster.salt('-C', 'G@kind:python or G@role:db', 'test.ping', '--out', 'json', '--static')).stdout);
    expect(Object.keys(compound).sort()).toEqual(['bm2', 'py1', 'py2']);
  });

  it('salt -b 2 runs cmd.run two at a time over the whole fleet, and the job cache holds every return', async () => {
    const res = await cluster.salt('-b', '2', '*', 'cmd.run', 'echo batch-$((1+1))');
    expect(res.code).toBe(0);
    // Salt's sliding window: two at first, then one more as each returns.
    const runs = res.stdout.split('\n').filter((l) => l.startsWith('Executing run on'));
    expect(runs[0]).toMatch(/^Executing run on \['\w+', '\w+'\]$/);
    expect(runs.slice(1).every((l) => /^Executing run on \['\w+'\]$/.test(l))).toBe(true);
    expect(runs).toHaveLength(3);
    for (const id of ALL) expect(res.stdout).toContain(`${id}:\n    batch-2`);

    const jobs = json((await cluster.run('salt-run', ['jobs.list_jobs', '--out', 'json'])).stdout) as Record<string, { Function: string }>;
    const batchJids = Object.keys(jobs).filter((jid) => jobs[jid].Function === 'cmd.run');
    expect(batchJids.length).toBeGreaterThanOrEqual(2);
    const returned = new Set<string>();
    for (const jid of batchJids) {
      const found = json((await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--out', 'json'])).stdout);
      for (const [id, ret] of Object.entries(found)) {
        expect(ret).toBe('batch-2');
        returned.add(id);
      }
    }
    expect([...returned].sort()).toEqual(ALL);
  });

  it('one mine for the whole fleet: Salt and brine minions send, a brine minion and a Salt minion read all four', async () => {
    const sent = json((await cluster.salt('*', 'mine.send', 'grains.get', 'kind', '--out', 'json', '--static')).stdout);
    expect(sent).toEqual({ bm1: true, bm2: true, py1: true, py2: true });
    const everyone = { bm1: 'brine', bm2: 'brine', py1: 'python', py2: 'python' };
    for (const reader of ['bm1', 'py1']) {
      expect(json((await cluster.salt(reader, 'mine.get', '*', 'grains.get', '--out', 'json')).stdout)[reader]).toEqual(everyone);
    }
    expect(json((await cluster.salt('bm2', 'mine.get', 'role:web', 'grains.get', 'tgt_type=grain', '--out', 'json')).stdout).bm2).toEqual({
      bm1: 'brine',
      py1: 'python',
    });
  });

  it('logged no bad load or HMAC lines for any of them', () => {
    expect(cluster.master!.log).not.toMatch(/Bad request|HMAC|bad load|not exposed|Request handling failed/);
  });
});
