/**
 * Salt 3007's RSA options across brine and a real Salt 3007.10. `sign_pub_messages: False`: a Salt
 * master that does not sign its publications runs jobs on a brine minion told not to ask for the
 * signature, while a brine minion that asks (its default) drops them and says which setting to
 * change; a brine master that does not sign runs jobs on a Salt minion (which by default does not
 * look for a signature). `publish_signing_algorithm: PKCS1v15-SHA224`: a Salt minion that checks
 * signatures runs a brine master's jobs signed so. A minion's `encryption_algorithm: OAEP-SHA224`
 * and `signing_algorithm: PKCS1v15-SHA224` (the sign-in and `_pillar` replies answered in SHA-224):
 * a Salt minion so configured under a brine master, and a brine minion under Salt's master.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import {
  describeWithSalt,
  json,
  runSalt,
  type SaltDaemon,
  startSalt,
  writeSaltMasterConfig,
  writeSaltMinionConfig,
} from '../support/salt-ref';

/**
 * OAEP with SHA-224 carries at most 70 bytes to a 1024-bit key (the test clusters' size), less than
 * an AES key or a token: these keys are Salt's default 2048 bits.
 */
const SHA224 = { encryption_algorithm: 'OAEP-SHA224', signing_algorithm: 'PKCS1v15-SHA224', keysize: 2048 };

describeWithSalt("Salt's RSA options between brine and Salt 3007", () => {
  /** brine minions under Salt's master. */
  let underSalt: Cluster;
  /** A brine master with a Salt minion. */
  let brineMaster: Cluster;
  /** A brine master signing with SHA-224, with a Salt minion that checks. */
  let sha224Master: Cluster;
  let checkingMinion: SaltDaemon;
  let saltMaster: SaltDaemon;
  let saltMinion: SaltDaemon;
  let saltMasterDir: string;

  beforeAll(async () => {
    underSalt = await Cluster.create();
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(underSalt.root, ports, { sign_pub_messages: false, auto_accept: true });
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    underSalt.retPort = ports.ret;
    brineMaster = await Cluster.create({ auto_accept: true, sign_pub_messages: false });
    await brineMaster.startMaster();
    saltMinion = startSalt('py1', 'salt-minion', writeSaltMinionConfig(brineMaster.root, 'py1', brineMaster.retPort));
    sha224Master = await Cluster.create({ auto_accept: true, publish_signing_algorithm: 'PKCS1v15-SHA224', keysize: 2048 });
    await sha224Master.startMaster();
    checkingMinion = startSalt(
      'py2',
      'salt-minion',
      writeSaltMinionConfig(sha224Master.root, 'py2', sha224Master.retPort, { sign_pub_messages: true, ...SHA224 }),
    );
    await Promise.all([
      // The brine minions retry their sign-in until Salt's master answers (4-7 s to start).
      underSalt.startMinion({ id: 'bs1', config: { sign_pub_messages: false } }, 'is ready'),
      underSalt.startMinion({ id: 'bs2' }, 'is ready'),
      underSalt.startMinion({ id: 'bs3', config: { sign_pub_messages: false, ...SHA224 } }, 'is ready'),
      saltMinion.waitFor('Minion is ready to receive requests!', 60_000),
      checkingMinion.waitFor('Minion is ready to receive requests!', 60_000),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([saltMinion?.stop(), checkingMinion?.stop()]);
    await Promise.all([brineMaster?.stop(), sha224Master?.stop()]);
    await Promise.all([...(underSalt?.minions.values() ?? [])].map((m) => m.stop()));
    await saltMaster?.stop();
    if (underSalt) rmSync(underSalt.root, { recursive: true, force: true });
  });

  it("a brine minion with sign_pub_messages False answers Salt's unsigned publication", async () => {
    const ping = await runSalt('salt', saltMasterDir, ['bs1', 'test.ping', '--out', 'json', '--static', '-t', '20']);
    expect(json(ping.stdout)).toEqual({ bs1: true });
  });

  it('a brine minion that asks for the signature drops it, naming the settings', async () => {
    await runSalt('salt', saltMasterDir, ['bs2', 'test.ping', '--async']);
    await underSalt.minions
      .get('bs2')!
      .waitFor('message signing is enabled but the payload has no signature: set sign_pub_messages: True in the master config', 30_000);
  });

  it("a Salt minion answers a brine master's unsigned publication", async () => {
    const ping = await brineMaster.salt('py1', 'test.ping', '--out', 'json', '--static');
    expect(json(ping.stdout)).toEqual({ py1: true });
  });

  it("a Salt minion with sign_pub_messages True checks and runs a brine master's jobs signed with PKCS1v15-SHA224", async () => {
    const ping = await sha224Master.salt('py2', 'test.ping', '--out', 'json', '--static');
    expect(json(ping.stdout)).toEqual({ py2: true });
  });

  it('a Salt minion with encryption_algorithm and signing_algorithm SHA-224 gets its pillar from a brine master (send_private in SHA-224)', async () => {
    const pillar = await sha224Master.salt('py2', 'pillar.items', '--out', 'json', '--static');
    expect(json(pillar.stdout)).toEqual({ py2: {} });
  });

  it("a brine minion with encryption_algorithm and signing_algorithm SHA-224 signs in to Salt's master, runs its job and gets its pillar", async () => {
    const ping = await runSalt('salt', saltMasterDir, ['bs3', 'test.ping', '--out', 'json', '--static', '-t', '20']);
    expect(json(ping.stdout)).toEqual({ bs3: true });
    const pillar = await runSalt('salt', saltMasterDir, ['bs3', 'pillar.items', '--out', 'json', '--static', '-t', '20']);
    expect(json(pillar.stdout)).toEqual({ bs3: {} });
  });
});
