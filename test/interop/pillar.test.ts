/**
 * Pillar both ways with the reference Salt 3007.10 (../shared/salt-ref): a real Salt minion asks a
 * brine master for its pillar (`_pillar` with Salt's own fields, answered with send_private), and
 * a brine minion asks a real Salt master for its own. Each side holds a second minion's secret in
 * the same top file, which must never reach the first. One brine master, one Salt master and one
 * minion on each for the whole file; every wait is on a log line or a command's answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import { describeWithSalt, runSalt, startSalt, writeSaltMasterConfig, writeSaltMinionConfig, type SaltDaemon } from '../support/salt-ref';

function json(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON: ${text}`);
  }
}

/** A pillar tree: every minion gets `site`; `mine` and `other` get their own secret. */
function writePillar(dir: string, mine: string, other: string): void {
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  writeFileSync(
    join(dir, 'top.sls'),
    `base:\n  '*':\n    - common\n  '${mine}':\n    - secrets.${mine}\n  '${other}':\n    - secrets.${other}\n`,
  );
  writeFileSync(
    join(dir, 'common.sls'),
    "site: {{ grains['id'] }}.example\n{% set owner = 'ops' %}\nnested:\n  owner: {{ owner }}\n  ports: [80, 443]\n",
  );
  writeFileSync(join(dir, 'secrets', `${mine}.sls`), `secret: ${mine}-only-secret\nrole: {{ grains.get('role', 'none') }}\n`);
  writeFileSync(join(dir, 'secrets', `${other}.sls`), `secret: ${other}-only-secret\n`);
}

describeWithSalt('pillar between brine and Salt 3007', () => {
  let cluster: Cluster;
  let brinePillar: string;
  let pyMinionDir: string;
  let pyMinion: SaltDaemon;
  let saltMasterDir: string;
  let saltMasterPillar: string;
  let saltMaster: SaltDaemon;
  const salt = (...args: string[]) => runSalt('salt', saltMasterDir, args);

  beforeAll(async () => {
    cluster = await Cluster.create({ auto_accept: true, timeout: 20, gather_job_timeout: 10 });
    brinePillar = join(cluster.root, 'brine-pillar');
    writePillar(brinePillar, 'pyminion', 'elsewhere');
    saltMasterPillar = join(cluster.root, 'salt-pillar');
    writePillar(saltMasterPillar, 'bm1', 'elsewhere');

    const masterConf = join(cluster.masterDir, 'master');
    writeFileSync(masterConf, `${readFileSync(masterConf, 'utf8')}pillar_roots:\n  base:\n    - ${brinePillar}\n`);
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(cluster.root, ports, { auto_accept: true, pillar_roots: { base: [saltMasterPillar] } });
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);

    await cluster.startMaster();
    pyMinionDir = writeSaltMinionConfig(cluster.root, 'pyminion', cluster.retPort, { grains: { role: 'py' } });
    pyMinion = startSalt('pyminion', 'salt-minion', pyMinionDir);

    // The brine minion signs in to Salt's master (it retries until that master answers).
    const bm = await cluster.startMinion(
      { id: 'bm1', grains: { role: 'brine' }, config: { master_port: ports.ret } },
      'Setting up the Salt Minion',
    );
    await Promise.all([bm.waitFor('is ready', 80_000), pyMinion.waitFor('Minion is ready to receive requests!', 80_000)]);
  }, 120_000);

  afterAll(async () => {
    // The Salt daemons first: their roots are inside the cluster's, which stop() removes.
    await Promise.all([pyMinion?.stop(), saltMaster?.stop()]);
    await cluster?.stop();
  });

  it('a Salt minion gets its pillar from a brine master, and only its own', async () => {
    const res = await cluster.salt('pyminion', 'pillar.items', '--out', 'json');
    expect(res.code, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({
      pyminion: { site: 'pyminion.example', nested: { owner: 'ops', ports: [80, 443] }, secret: 'pyminion-only-secret', role: 'py' },
    });
    expect(res.stdout).not.toContain('elsewhere-only-secret');
    const nested = await cluster.salt('pyminion', 'pillar.get', 'nested:ports', '--out', 'json');
    expect(json(nested.stdout)).toEqual({ pyminion: [80, 443] });
  });

  it("a Salt minion sees a changed pillar after saltutil.refresh_pillar, and -I targets it from brine's cache", async () => {
    writeFileSync(join(brinePillar, 'secrets', 'pyminion.sls'), "secret: rotated\nrole: {{ grains.get('role', 'none') }}\n");
    expect(json((await cluster.salt('pyminion', 'saltutil.refresh_pillar', '--out', 'json')).stdout)).toEqual({ pyminion: true });
    expect(json((await cluster.salt('pyminion', 'pillar.get', 'secret', '--out', 'json')).stdout)).toEqual({ pyminion: 'rotated' });
    const targeted = await cluster.salt('-I', 'secret:rotated', 'test.ping', '--out', 'json');
    expect(json(targeted.stdout)).toEqual({ pyminion: true });
  });

  it('a brine minion gets its pillar from a Salt master, and only its own', async () => {
    const res = await salt('bm1', 'pillar.items', '--out', 'json', '-t', '30');
    expect(res.code, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({
      bm1: { site: 'bm1.example', nested: { owner: 'ops', ports: [80, 443] }, secret: 'bm1-only-secret', role: 'brine' },
    });
    expect(res.stdout).not.toContain('elsewhere-only-secret');
    expect(json((await salt('bm1', 'pillar.get', 'nested:owner', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: 'ops' });
  });

  it("a brine minion refreshes its pillar from a Salt master, and Salt's -I targets it", async () => {
    writeFileSync(join(saltMasterPillar, 'secrets', 'bm1.sls'), "secret: rotated-by-salt\nrole: {{ grains.get('role', 'none') }}\n");
    expect(json((await salt('bm1', 'saltutil.refresh_pillar', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: true });
    expect(json((await salt('bm1', 'pillar.get', 'secret', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: 'rotated-by-salt' });
    expect(json((await salt('-I', 'secret:rotated-by-salt', 'test.ping', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: true });
  });
});
