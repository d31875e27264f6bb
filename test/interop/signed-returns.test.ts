/**
 * `minion_sign_messages` between brine and a real Salt 3007.10, with both masters at their
 * strictest (`require_minion_sign_messages` and `drop_messages_signature_fail`): a brine minion's
 * signed returns pass Salt's master's check (which Salt's own minions fail: they sign before
 * their channel adds `ts`, see src/core/channel/message-signature.ts), a Salt minion's pass brine's
 * master's, floats included, and an unsigned minion's returns are dropped by either master.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { waitForFileText } from '../../scripts/cluster';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import {
  describeWithSalt,
  json,
  runSalt,
  type SaltDaemon,
  saltLog,
  startSalt,
  writeSaltMasterConfig,
  writeSaltMinionConfig,
} from '../support/salt-ref';

const STRICT = { require_minion_sign_messages: true, drop_messages_signature_fail: true };

/** status.loadavg's three floats, whatever their values. */
const LOADAVG = { '1-min': expect.any(Number), '5-min': expect.any(Number), '15-min': expect.any(Number) };

describeWithSalt('minion_sign_messages between brine and Salt 3007', () => {
  /** brine minions under Salt's master. */
  let underSalt: Cluster;
  /** A brine master with Salt minions. */
  let brineMaster: Cluster;
  let saltMaster: SaltDaemon;
  let signing: SaltDaemon;
  let unsigned: SaltDaemon;
  let saltMasterDir: string;

  beforeAll(async () => {
    underSalt = await Cluster.create();
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(underSalt.root, ports, { auto_accept: true, ...STRICT });
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    underSalt.retPort = ports.ret;
    brineMaster = await Cluster.create({ auto_accept: true, ...STRICT });
    await brineMaster.startMaster();
    signing = startSalt(
      'py1',
      'salt-minion',
      writeSaltMinionConfig(brineMaster.root, 'py1', brineMaster.retPort, { minion_sign_messages: true }),
    );
    unsigned = startSalt('py2', 'salt-minion', writeSaltMinionConfig(brineMaster.root, 'py2', brineMaster.retPort));
    await Promise.all([
      // The brine minions retry their sign-in until Salt's master answers (4-7 s to start).
      underSalt.startMinion({ id: 'bs1', config: { minion_sign_messages: true } }, 'is ready'),
      underSalt.startMinion({ id: 'bs2' }, 'is ready'),
      signing.waitFor('Minion is ready to receive requests!', 60_000),
      unsigned.waitFor('Minion is ready to receive requests!', 60_000),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([signing?.stop(), unsigned?.stop()]);
    await brineMaster?.stop();
    await Promise.all([...(underSalt?.minions.values() ?? [])].map((m) => m.stop()));
    await saltMaster?.stop();
    if (underSalt) rmSync(underSalt.root, { recursive: true, force: true });
  });

  it("Salt's master verifies a brine minion's signed returns", async () => {
    const ping = await runSalt('salt', saltMasterDir, ['bs1', 'test.ping', '--out', 'json', '--static', '-t', '20']);
    expect(json(ping.stdout)).toEqual({ bs1: true });
    const load = await runSalt('salt', saltMasterDir, ['bs1', 'status.loadavg', '--out', 'json', '--static', '-t', '20']);
    expect(json(load.stdout)).toEqual({ bs1: LOADAVG });
  });

  it("Salt's master drops an unsigned brine minion's return", async () => {
    await runSalt('salt', saltMasterDir, ['bs2', 'test.ping', '--async']);
    await waitForFileText(saltLog(saltMasterDir, 'master'), /no signature in this payload from bs2/, 30_000);
  });

  it("brine's master verifies a Salt minion's signed returns, floats included", async () => {
    const ping = await brineMaster.salt('py1', 'test.ping', '--out', 'json', '--static');
    expect(json(ping.stdout)).toEqual({ py1: true });
    const load = await brineMaster.salt('py1', 'status.loadavg', '--out', 'json', '--static');
    expect(json(load.stdout)).toEqual({ py1: LOADAVG });
  });

  it("brine's master drops an unsigned Salt minion's return, saying which setting is missing", async () => {
    await brineMaster.salt('py2', 'test.ping', '--async');
    await brineMaster.master!.waitFor('Dropped a return from py2: require_minion_sign_messages is set and it is not signed', 30_000);
  });
});
