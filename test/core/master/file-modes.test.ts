/** The master's files are its own: cachedir 0700, job cache and minion data 0600, pki checked at start. */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJobCache } from '../../../src/core/master/job-cache/sqlite-cache';
import { MinionDataCache } from '../../../src/core/master/minion-data-cache';
import { checkPkiPermissions } from '../../../src/core/crypto/key-permissions';
import { codeOf, codeOfAsync } from '../../support/errors';
import { MasterHarness } from '../../support/master-harness';
import { Master } from '../../../src/core/master/master';
import { createLogging } from '../../../src/core/log';
import { freePort } from '../../support/ports';
import { MinionChannel } from '../../../src/core/minion/channel-client';
import { keyPem } from '../protocol/wire-vectors';

const mode = (p: string) => statSync(p).mode & 0o777;
let dir: string;
let h: MasterHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('file modes', () => {
  it('job cache and its -wal/-shm are 0600 even with a permissive umask', () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-modes-'));
    const old = process.umask(0o022);
    try {
      const file = join(dir, 'job-cache.sqlite3');
      const cache = new SqliteJobCache(file);
      cache.saveJob({
        jid: '20260101000000000001',
        tgt: '*',
        tgt_type: 'glob',
        fun: 'test.ping',
        arg: [],
        user: 'root',
        minions: ['web1'],
        started: new Date(),
      });
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f).toString(8)).toBe('600');
      cache.close();
    } finally {
      process.umask(old);
    }
  });

  it('minion data is 0600 in 0700 directories', async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-modes-'));
    const cache = new MinionDataCache(dir);
    cache.update('web1', { grains: { os: 'Debian' } });
    await cache.flush();
    expect(mode(join(dir, 'minions')).toString(8)).toBe('700');
    expect(mode(join(dir, 'minions', 'web1')).toString(8)).toBe('700');
    expect(mode(join(dir, 'minions', 'web1', 'data.json')).toString(8)).toBe('600');
  });

  it('the master makes its cachedir 0700', async () => {
    h = await MasterHarness.start();
    expect(mode(h.settings.cachedir).toString(8)).toBe('700');
  });
});

describe('permissive_pki_access', () => {
  it('refuses a readable private key or pki dir, naming the file and the chmod', () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-pki-'));
    const pki = join(dir, 'pki');
    mkdirSync(pki, { mode: 0o700 });
    const pem = join(pki, 'master.pem');
    rmSync(pem, { force: true });
    expect(codeOf(() => checkPkiPermissions(pki, pem, false))).toBeUndefined();
    chmodSync(pki, 0o755);
    let err: { code?: string; message?: string; hint?: string } = {};
    try {
      checkPkiPermissions(pki, pem, false);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe('PKI_PERMISSIONS');
    expect(err.hint).toBe(`run 'chmod 700 ${pki}', or set permissive_pki_access: True`);
    expect(codeOf(() => checkPkiPermissions(pki, pem, true))).toBeUndefined();
  });

  it('a master whose master.pem is 0644 does not start, unless permissive_pki_access', async () => {
    h = await MasterHarness.start();
    const settings = h.settings;
    await h.master.stop();
    chmodSync(join(settings.pki_dir, 'master.pem'), 0o644);
    const log = createLogging({ level: 'quiet', console: false }).getLogger('salt.master');
    expect(await codeOfAsync(() => new Master(settings, log).start())).toBe('PKI_PERMISSIONS');
    const ports = { publish_port: await freePort(), ret_port: await freePort() };
    const permissive = new Master({ ...settings, ...ports, permissive_pki_access: true }, log);
    await permissive.start();
    h.master = permissive;
  });

  it('a minion whose minion.pem is 0644 does not sign in, unless permissive_pki_access', async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-pki-'));
    const pki = join(dir, 'pki');
    mkdirSync(pki, { mode: 0o700 });
    writeFileSync(join(pki, 'minion.pem'), keyPem('web1.pem'), { mode: 0o644 });
    writeFileSync(join(pki, 'minion.pub'), keyPem('web1.pub'));
    const log = createLogging({ level: 'quiet', console: false }).getLogger('salt.minion');
    // Nothing listens on master_port: past the check, the one sign-in try times out.
    const settings = {
      id: 'web1',
      master: '127.0.0.1',
      master_port: await freePort(),
      pki_dir: pki,
      keysize: 2048,
      acceptance_wait_time: 1,
      auth_timeout: 1,
      auth_tries: 1,
      recon_default: 100,
      recon_max: 100,
    };
    const strict = new MinionChannel(settings, log);
    expect(await codeOfAsync(() => strict.connect({ once: true }))).toBe('PKI_PERMISSIONS');
    await strict.stop();
    const permissive = new MinionChannel({ ...settings, permissive_pki_access: true }, log);
    expect(await codeOfAsync(() => permissive.connect({ once: true }))).toBe('SIGN_IN_TIMEOUT');
    await permissive.stop();
  });
});
