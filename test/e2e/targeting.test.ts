/**
 * Every target type through the real binaries: the master computes whom to expect, the minions
 * check for themselves, and exactly the right ones answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, type RunResult } from '../support/cluster';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.create({
    nodegroups: { webs: 'L@web1,web2', dbs: ['db1'], everything: 'N@webs or N@dbs', loop1: 'N@loop2', loop2: 'N@loop1' },
  });
  await cluster.startMaster();
  await cluster.startAccepted([
    { id: 'web1', grains: { os: 'Debian', roles: ['web', 'frontend'], ipv4: ['127.0.0.1', '10.1.0.5'], site: { dc: 'par', rack: 'r1' } } },
    { id: 'web2', grains: { os: 'RedHat', roles: ['web'], ipv4: ['127.0.0.1', '10.1.0.6'], site: { dc: 'ams', rack: 'r2' } } },
    { id: 'db1', grains: { os: 'Debian', roles: ['database'], ipv4: ['127.0.0.1', '10.2.0.1'], site: { dc: 'par', rack: 'r9' } } },
  ]);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The minions that answered, sorted. */
function answered(res: RunResult): string[] {
  return Object.keys(JSON.parse(res.stdout || '{}')).sort();
}

async function reached(...args: string[]): Promise<string[]> {
  const res = await cluster.salt(...args, 'test.ping', '--out', 'json', '--static');
  expect(res.stderr).toBe('');
  return answered(res);
}

describe('target types end to end', () => {
  it('-G matches grains case-insensitively, in lists and nested dicts', async () => {
    expect(await reached('-G', 'os:debian')).toEqual(['db1', 'web1']);
    expect(await reached('-G', 'roles:front*')).toEqual(['web1']);
    expect(await reached('-G', 'site:dc:par')).toEqual(['db1', 'web1']);
  });

  it('-P matches grains with regular expressions', async () => {
    expect(await reached('-P', 'os:(Red|Deb)')).toEqual(['db1', 'web1', 'web2']);
    expect(await reached('-P', 'site:rack:r[12]')).toEqual(['web1', 'web2']);
  });

  it('-E is anchored at the start, as re.match', async () => {
    expect(await reached('-E', 'web')).toEqual(['web1', 'web2']);
    expect(await reached('-E', '.*1$')).toEqual(['db1', 'web1']);
  });

  it('-L takes a comma-separated list', async () => {
    expect(await reached('-L', 'web2,db1')).toEqual(['db1', 'web2']);
  });

  it('-S matches addresses and networks against the ipv4 grain', async () => {
    expect(await reached('-S', '10.1.0.0/24')).toEqual(['web1', 'web2']);
    expect(await reached('-S', '10.2.0.1')).toEqual(['db1']);
  });

  it('-C combines target types with and, or, not and parentheses', async () => {
    expect(await reached('-C', 'G@os:Debian and web*')).toEqual(['web1']);
    expect(await reached('-C', 'web* not web2')).toEqual(['web1']);
    expect(await reached('-C', '( G@os:RedHat or L@db1 ) and not S@10.1.0.5')).toEqual(['db1', 'web2']);
    expect(await reached('-C', 'G%@site%dc%ams')).toEqual(['web2']);
  });

  it('-N expands nodegroups, nested ones too', async () => {
    expect(await reached('-N', 'webs')).toEqual(['web1', 'web2']);
    expect(await reached('-N', 'dbs')).toEqual(['db1']);
    expect(await reached('-N', 'everything')).toEqual(['db1', 'web1', 'web2']);
  });

  it('says why a malformed target (or batch size) is wrong, and publishes nothing', async () => {
    const before = cluster.master!.count('Published command');
    for (const args of [
      ['-C', 'G@os:Debian and and web*'],
      ['-E', 'web[1'],
      ['-S', '10.1.0.0/99'],
      ['-N', 'nosuchgroup'],
      ['-N', 'loop1'],
      ['-b', 'abc', 'web*'],
    ]) {
      const res = await cluster.salt(...args, 'test.ping');
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(/^ERROR: .+/);
      expect(res.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    expect(cluster.master!.count('Published command')).toBe(before);
  });

  it('--preview-target prints the minions a target matches, from the master cache, and publishes nothing', async () => {
    const before = cluster.master!.count('Published command');
    const res = await cluster.salt('--preview-target', '-G', 'os:debian', 'test.ping');
    expect(res.stdout).toBe('- db1\n- web1\n');
    const json = await cluster.salt('--preview-target', '-N', 'webs', 'test.ping', '--out', 'json');
    expect(JSON.parse(json.stdout)).toEqual(['web1', 'web2']);
    expect(cluster.master!.count('Published command')).toBe(before);
  });

  it('--batch-safe-limit turns a run on that many minions or more into batches of --batch-safe-size', async () => {
    const res = await cluster.salt('--batch-safe-limit', '3', '--batch-safe-size', '1', '*', 'test.ping');
    expect(res.code).toBe(0);
    expect(res.stdout.startsWith('\nNOTICE: Too many minions targeted, switching to batch execution.\n')).toBe(true);
    expect(res.stdout.match(/^Executing run on \[/gm)).toHaveLength(3);
    const small = await cluster.salt('--batch-safe-limit', '3', 'web*', 'test.ping');
    expect(small.stdout).not.toContain('NOTICE');
  });

  it('a target that matches no known minion says so without publishing', async () => {
    const before = cluster.master!.count('Published command');
    const res = await cluster.salt('-G', 'os:Windows', 'test.ping');
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('No minions matched the target. No command was sent, no jid was assigned.\n');
    expect(cluster.master!.count('Published command')).toBe(before);
  });

  it('targets a grain set after start once the minion has sent it', async () => {
    const set = await cluster.salt('db1', 'grains.setval', 'tier', 'gold', '--out', 'json');
    expect(JSON.parse(set.stdout)).toEqual({ db1: { tier: 'gold' } });
    expect(await reached('-G', 'tier:gold')).toEqual(['db1']);
  });
});

describe('manage runners', () => {
  it('manage.status, manage.up and manage.down split the accepted minions by who answers', async () => {
    const status = await cluster.run('salt-run', ['manage.status', '--out', 'json']);
    expect(JSON.parse(status.stdout)).toEqual({ up: ['db1', 'web1', 'web2'], down: [] });
    await cluster.minions.get('web2')!.stop();
    // As Salt's _ping: the timeout, then gather_job_timeout for the minions still missing.
    const up = await cluster.run('salt-run', ['manage.up', '-t', '2', 'gather_job_timeout=1']);
    expect(up.stdout).toBe('- db1\n- web1\n');
    const down = await cluster.run('salt-run', ['manage.down', '-t', '2', 'gather_job_timeout=1', '--out', 'json']);
    expect(JSON.parse(down.stdout)).toEqual(['web2']);
  });
});
