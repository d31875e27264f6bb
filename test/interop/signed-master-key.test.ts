/**
 * Salt's signed master public key between brine and a real Salt 3007.10: a master with
 * `master_sign_pubkey: True` sends `pub_sig`, its master_sign.pem's signature of its key, in
 * every accepted sign-in; a minion with `verify_master_pubkey_sign: True` and the master's
 * master_sign.pub in its pki_dir checks it, and trusts a new master key that signature vouches
 * for (a master re-keyed) where it would otherwise refuse the master. Both ways: a brine minion
 * under Salt's master, a Salt minion under brine's, and each master re-keyed under the other's
 * minion; then a brine master re-keyed by hand, sending the signature brine's
 * `salt-key --gen-signature` made (`master_use_pubkey_signature`). Every wait is on a log line, a
 * file or a command's answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster, waitForFileText } from '../support/cluster';
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

const SIGNED_MASTER = { master_sign_pubkey: true, auto_accept: true };
const VERIFYING_MINION = { verify_master_pubkey_sign: true };

/** Copies a master's master_sign.pub into a minion's pki_dir (what an admin does before starting it). */
function giveSigningKey(masterPki: string, minionPki: string): void {
  mkdirSync(minionPki, { recursive: true, mode: 0o700 });
  copyFileSync(join(masterPki, 'master_sign.pub'), join(minionPki, 'master_sign.pub'));
}

/** Removes a master's own key pair, as a re-key does; master_sign stays. */
function removeMasterKey(masterPki: string): void {
  rmSync(join(masterPki, 'master.pem'));
  rmSync(join(masterPki, 'master.pub'));
}

/** Both kinds of minion log this, in Salt's words, when master_sign vouched for a new master key. */
const VERIFIED = 'Received signed and verified master pubkey';

const pem = (file: string) => readFileSync(file, 'utf8').trim();

/** Runs a `--out json --static` ping until the minion answers True (at most `tries` times); its last answer. */
async function pingUntilAnswered(ping: () => Promise<{ stdout: string }>, tries = 5): Promise<Record<string, unknown>> {
  let answer: Record<string, unknown> = {};
  for (let i = 0; i < tries; i++) {
    const { stdout } = await ping();
    // A master still starting answers nothing on stdout (its error goes to stderr).
    answer = stdout.trim() === '' ? {} : json(stdout);
    if (Object.keys(answer).length > 0 && Object.values(answer).every((v) => v === true)) break;
  }
  return answer;
}

describeWithSalt("Salt's signed master key between brine and Salt 3007", () => {
  /** A brine minion under Salt's master. */
  let underSalt: Cluster;
  let saltMasterDir: string;
  let saltMasterPki: string;
  let saltMaster: SaltDaemon;
  /** A Salt minion under a brine master. */
  let brineMaster: Cluster;
  let brineMasterPki: string;
  let pyDir: string;
  let py: SaltDaemon;

  beforeAll(async () => {
    underSalt = await Cluster.create();
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(underSalt.root, ports, SIGNED_MASTER);
    saltMasterPki = join(saltMasterDir, 'etc', 'salt', 'pki', 'master');
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    underSalt.retPort = ports.ret;

    brineMaster = await Cluster.create(SIGNED_MASTER);
    brineMasterPki = join(brineMaster.root, 'master', 'etc', 'salt', 'pki', 'master');
    await brineMaster.startMaster();
    // A quick reconnect after each master restart below: a job published before the Salt
    // minion's subscription is back never reaches it (ZeroMQ's reconnect interval, Salt's recon_*).
    pyDir = writeSaltMinionConfig(brineMaster.root, 'py1', brineMaster.retPort, {
      ...VERIFYING_MINION,
      recon_default: 200,
      recon_max: 500,
      recon_randomize: false,
    });
    giveSigningKey(brineMasterPki, join(pyDir, 'etc', 'salt', 'pki', 'minion'));
    py = startSalt('py1', 'salt-minion', pyDir);

    // Salt's master makes its signing pair as it starts; the brine minion needs its public half first.
    await waitForFileText(join(saltMasterPki, 'master_sign.pub'), 'END PUBLIC KEY', 60_000);
    giveSigningKey(saltMasterPki, join(underSalt.root, 'minions', 'bm1', 'etc', 'salt', 'pki', 'minion'));
    await Promise.all([
      underSalt.startMinion({ id: 'bm1', config: VERIFYING_MINION }, 'is ready'),
      py.waitFor('Minion is ready to receive requests!', 60_000),
    ]);
  }, 90_000);

  afterAll(async () => {
    await py?.stop();
    await brineMaster?.stop();
    await Promise.all([...(underSalt?.minions.values() ?? [])].map((m) => m.stop()));
    await saltMaster?.stop();
    if (underSalt) rmSync(underSalt.root, { recursive: true, force: true });
  });

  it("a brine minion checks Salt's pub_sig with master_sign.pub, caches the key and runs Salt's job", async () => {
    const bm1 = underSalt.minions.get('bm1')!;
    expect(bm1.log).toContain(`${VERIFIED} from master 127.0.0.1`);
    expect(pem(join(underSalt.root, 'minions', 'bm1', 'etc', 'salt', 'pki', 'minion', 'minion_master.pub'))).toBe(
      pem(join(saltMasterPki, 'master.pub')),
    );
    const ping = await runSalt('salt', saltMasterDir, ['bm1', 'test.ping', '--out', 'json', '--static', '-t', '20']);
    expect(json(ping.stdout)).toEqual({ bm1: true });
  });

  it("a Salt minion checks a brine master's pub_sig and runs its job", async () => {
    expect(py.log).toContain(`${VERIFIED} from master 127.0.0.1`);
    const ping = await brineMaster.salt('py1', 'test.ping', '--out', 'json', '--static');
    expect(json(ping.stdout)).toEqual({ py1: true });
  });

  /**
   * Stops the brine master, removes its key pair, lets `rekey` prepare the next start (nothing: the
   * master makes a new pair), starts it, and checks that the Salt minion trusted the new key.
   */
  async function rekeyBrineMaster(rekey: () => Promise<void> = async () => undefined): Promise<void> {
    const verified = py.count(VERIFIED);
    await brineMaster.master!.stop();
    removeMasterKey(brineMasterPki);
    await rekey();
    await brineMaster.startMaster();
    // A publication sealed with the new master's AES key makes the Salt minion sign in again to
    // read it. One sent before its subscription is back never reaches it, as with Salt's own
    // master: ask again until it answers.
    expect(await pingUntilAnswered(() => brineMaster.salt('py1', 'test.ping', '--out', 'json', '--static', '-t', '10'))).toEqual({
      py1: true,
    });
    expect(py.count(VERIFIED)).toBe(verified + 1);
    expect(pem(join(pyDir, 'etc', 'salt', 'pki', 'minion', 'minion_master.pub'))).toBe(pem(join(brineMasterPki, 'master.pub')));
  }

  it('a brine master re-keyed: the Salt minion trusts the new key that master_sign vouches for', async () => {
    await rekeyBrineMaster();
  }, 90_000);

  it("a brine master re-keyed by hand with salt-key --gen-keys and --gen-signature (master_use_pubkey_signature): the Salt minion verifies brine's signature file", async () => {
    await rekeyBrineMaster(async () => {
      expect((await brineMaster.saltKey('--gen-keys', 'master', '--gen-keys-dir', brineMasterPki)).code).toBe(0);
      expect((await brineMaster.saltKey('--gen-signature')).stdout).toBe('return:\n    True\n');
      const conf = join(brineMaster.masterDir, 'master');
      writeFileSync(conf, `${readFileSync(conf, 'utf8')}master_use_pubkey_signature: true\n`);
    });
  }, 90_000);

  it("Salt's master re-keyed: the brine minion trusts the new key that master_sign vouches for", async () => {
    const bm1 = underSalt.minions.get('bm1')!;
    const verified = bm1.count(VERIFIED);
    await saltMaster.stop();
    removeMasterKey(saltMasterPki);
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    // The brine minion signs in again once its subscription is back, and meets the new key.
    await bm1.waitFor(new RegExp(`(${VERIFIED}[\\s\\S]*){${verified + 1}}`), 60_000);
    expect(
      await pingUntilAnswered(() => runSalt('salt', saltMasterDir, ['bm1', 'test.ping', '--out', 'json', '--static', '-t', '10'])),
    ).toEqual({
      bm1: true,
    });
    expect(bm1.count(VERIFIED)).toBe(verified + 1);
    expect(pem(join(underSalt.root, 'minions', 'bm1', 'etc', 'salt', 'pki', 'minion', 'minion_master.pub'))).toBe(
      pem(join(saltMasterPki, 'master.pub')),
    );
  }, 90_000);
});
