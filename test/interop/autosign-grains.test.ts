/**
 * Salt's autosign by grains between brine and a real Salt 3007.10: a minion with
 * `autosign_grains: [role]` sends its role grain with each sign-in, and a master with an
 * `autosign_grains_dir` holding a file `role` that lists `web` accepts its key at once; a minion
 * whose role is not listed waits in pending. Both ways: Salt minions under a brine master, brine
 * minions under Salt's master.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import { describeWithSalt, runSalt, startSalt, writeSaltMasterConfig, writeSaltMinionConfig, type SaltDaemon } from '../support/salt-ref';

/**
 * `autosign_grains_dir: /autosign_grains` (under the master's root_dir, which both prepend) with one
 * grains file, `role`, listing `web`.
 */
function grainsDir(rootDir: string): string {
  const dir = join(rootDir, 'autosign_grains');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'role'), '# roles accepted at first contact\nweb\n', { mode: 0o600 });
  return '/autosign_grains';
}

describeWithSalt('autosign_grains between brine and Salt 3007', () => {
  let underSalt: Cluster;
  let brineMaster: Cluster;
  let saltMaster: SaltDaemon;
  const saltMinions: SaltDaemon[] = [];
  let saltMasterDir: string;

  beforeAll(async () => {
    underSalt = await Cluster.create();
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(underSalt.root, ports, { autosign_grains_dir: '/autosign_grains' });
    grainsDir(saltMasterDir); // Salt's root_dir is its config dir
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    underSalt.retPort = ports.ret;
    brineMaster = await Cluster.create({ autosign_grains_dir: '/autosign_grains' });
    grainsDir(join(brineMaster.root, 'master'));
    await brineMaster.startMaster();
    for (const [id, role] of [
      ['pyweb', 'web'],
      ['pymail', 'mail'],
    ]) {
      saltMinions.push(
        startSalt(
          id,
          'salt-minion',
          writeSaltMinionConfig(brineMaster.root, id, brineMaster.retPort, { grains: { role }, autosign_grains: ['role'] }),
        ),
      );
    }
    await Promise.all([
      underSalt.startMinion({ id: 'bweb', grains: { role: 'web' }, config: { autosign_grains: ['role'] } }, 'is ready'),
      underSalt.startMinion({ id: 'bmail', grains: { role: 'mail' }, config: { autosign_grains: ['role'] } }, /has cached the public key/),
      saltMinions[0].waitFor('Minion is ready to receive requests!', 60_000),
      saltMinions[1].waitFor('has cached the public key', 60_000),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(saltMinions.map((m) => m.stop()));
    await brineMaster?.stop();
    await Promise.all([...(underSalt?.minions.values() ?? [])].map((m) => m.stop()));
    await saltMaster?.stop();
    if (underSalt) rmSync(underSalt.root, { recursive: true, force: true });
  });

  it("brine's master accepts the Salt minion whose role it lists, and leaves the other pending", async () => {
    const keys = await brineMaster.saltKey('-L', '--out', 'json');
    expect(JSON.parse(keys.stdout)).toMatchObject({ minions: ['pyweb'], minions_pre: ['pymail'] });
    const ping = await brineMaster.salt('pyweb', 'test.ping', '--out', 'json', '--static');
    expect(JSON.parse(ping.stdout)).toEqual({ pyweb: true });
  });

  it("Salt's master accepts the brine minion whose role it lists, and leaves the other pending", async () => {
    const keys = await runSalt('salt-key', saltMasterDir, ['-L', '--out', 'json']);
    expect(JSON.parse(keys.stdout)).toMatchObject({ minions: ['bweb'], minions_pre: ['bmail'] });
    const ping = await runSalt('salt', saltMasterDir, ['bweb', 'test.ping', '--out', 'json', '--static', '-t', '20']);
    expect(JSON.parse(ping.stdout)).toEqual({ bweb: true });
  });
});
