/**
 * The `service` module's sysvinit (Debian, Red Hat) and OpenRC backends and the `service` states,
 * with real parts. This container boots without systemd, so, as Salt would here, the Debian backend runs:
 *
 * - real LSB init scripts (fixtures/sysvinit/service.sh) under a temporary root (the minion option
 *   `service_root`), which start a real background daemon with Debian's real start-stop-daemon and
 *   a pid file; status, reload (HUP, same pid) and restart (new pid) are the scripts' own;
 * - boot links made by the real update-rc.d (`defaults`, under DPKG_ROOT = the root) and toggled
 *   S<->K by brine as update-rc.d enable/disable does;
 * - the states run in process through the real state runner (state.single, state.apply with a
 *   file.managed watched by service.running, so mod_watch restarts or reloads the real daemon).
 *
 * OpenRC and Red Hat's chkconfig are not installed here: `rc-update` and `chkconfig` are stand-ins
 * of the tests (fixtures/openrc-standin, fixtures/chkconfig-standin) that keep runlevel symlinks as
 * those tools do and answer with their layouts and exit codes; the init scripts they list and
 * brine runs are the real ones above.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';

const hasTools = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v update-rc.d && command -v start-stop-daemon'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A temporary root with init scripts `names` and the daemon they start. */
function makeRoot(prefix: string, names: string[]): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(root, 'etc/init.d'), { recursive: true });
  mkdirSync(join(root, 'usr/sbin'), { recursive: true });
  copyFileSync(fixture('sysvinit/brine-daemon'), join(root, 'usr/sbin/brine-daemon'));
  for (const n of names) copyFileSync(fixture('sysvinit/service.sh'), join(root, 'etc/init.d', n));
  return root;
}

const pidOf = (root: string, name: string): string => readFileSync(join(root, 'run', `${name}.pid`), 'utf8').trim();

/** Stop whatever daemons a root still runs, by their pid files (the scripts' own stop). */
function stopAll(root: string): void {
  for (const n of existsSync(join(root, 'etc/init.d')) ? readdirSync(join(root, 'etc/init.d')) : []) {
    try {
      execFileSync(join(root, 'etc/init.d', n), ['stop'], { stdio: 'ignore' });
    } catch {
      // Not running.
    }
  }
  rmSync(root, { recursive: true, force: true });
}

type Ran = { name: string; result: boolean | null; comment: string; changes: Record<string, unknown> };

describe.skipIf(!hasTools)('service on sysvinit (Debian): real init scripts, start-stop-daemon and update-rc.d', () => {
  let h: Harness;
  let root: string;
  const one = async (fun: string, name: string, kwargs: Record<string, unknown> = {}): Promise<Ran> => {
    const res = await h.call('state.single', [fun, name], kwargs);
    return Object.values(res.return as Record<string, Ran>)[0];
  };

  beforeAll(async () => {
    root = makeRoot('brine-sysv-', ['brine-web', 'brine-db']);
    mkdirSync(join(root, 'srv/salt'), { recursive: true });
    writeFileSync(
      join(root, 'srv/salt/web.sls'),
      [
        'web-config:',
        '  file.managed:',
        "    - name: {{ pillar['conf'] }}",
        "    - contents: {{ pillar['content'] }}",
        'brine-web:',
        '  service.running:',
        "    - reload: {{ pillar['reload'] }}",
        '    - watch:',
        '      - file: web-config',
        '',
      ].join('\n'),
    );
    h = await createHarness({
      shell: new NodeShell(),
      grains: { kernel: 'Linux', os: 'Debian', os_family: 'Debian', init: 'unknown' },
      config: { service_root: root, file_client: 'local', file_roots: { base: [join(root, 'srv/salt')] } },
      pillar: {},
    });
  });
  afterAll(() => stopAll(root));

  it('is the Debian backend here, as Salt chooses: no systemd booted, os Debian', async () => {
    expect((await h.call('sys.doc', ['service.enable'])).return).toMatchObject({
      'service.enable': expect.stringContaining('update-rc.d'),
    });
    const stateDoc = (await h.call('sys.state_doc', ['service'])).return as Record<string, string>;
    expect(Object.keys(stateDoc).sort()).toEqual([
      'service',
      'service.dead',
      'service.disabled',
      'service.enabled',
      'service.masked',
      'service.mod_watch',
      'service.running',
      'service.unmasked',
    ]);
    expect(stateDoc['service.running']).toContain('Ensure that the service is running');
    expect((await h.call('service.get_all')).return).toEqual(['brine-db', 'brine-web']);
    expect((await h.call('service.available', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.missing', ['nope'])).return).toBe(true);
  });

  it('start, status (and a glob), get_running, reload keeps the pid, restart makes a new one, stop', async () => {
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect((await h.call('service.start', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-*'])).return).toEqual({ 'brine-db': false, 'brine-web': true });
    expect((await h.call('service.get_running')).return).toEqual(['brine-web']);
    // sig: the process is looked for with ps (status.pid), whatever the name says.
    const sig = `${root}/usr/sbin/brine-daemon`;
    expect((await h.call('service.status', ['anything', sig])).return).toBe(true);
    const pid = pidOf(root, 'brine-web');
    expect((await h.call('service.reload', ['brine-web'])).return).toBe(true);
    expect(pidOf(root, 'brine-web')).toBe(pid);
    expect((await h.call('service.restart', ['brine-web'])).return).toBe(true);
    expect(pidOf(root, 'brine-web')).not.toBe(pid);
    expect((await h.call('service.stop', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect((await h.call('service.status', ['anything', sig])).return).toBe(false);
    // Salt's debian_service answers False (not an error) when the script fails or is missing.
    expect((await h.call('service.reload', ['brine-web'])).return).toBe(false);
    expect((await h.call('service.start', ['nope'])).return).toBe(false);
  });

  it('enable makes the rc links (real update-rc.d defaults), disable turns S into K, enabled/disabled/get_enabled follow', async () => {
    expect((await h.call('service.enabled', ['brine-db'])).return).toBe(false);
    expect((await h.call('service.enable', ['brine-db'])).return).toBe(true);
    expect(readlinkSync(join(root, 'etc/rc2.d/S01brine-db'))).toBe('../init.d/brine-db');
    expect(readlinkSync(join(root, 'etc/rc0.d/K01brine-db'))).toBe('../init.d/brine-db');
    expect((await h.call('service.enabled', ['brine-db'])).return).toBe(true);
    expect((await h.call('service.get_enabled')).return).toEqual(['brine-db']);
    expect((await h.call('service.get_disabled')).return).toEqual(['brine-web']);
    expect((await h.call('service.disable', ['brine-db'])).return).toBe(true);
    expect(readdirSync(join(root, 'etc/rc2.d'))).toEqual(['K01brine-db']);
    expect((await h.call('service.disabled', ['brine-db'])).return).toBe(true);
    expect((await h.call('service.enable', ['brine-db'])).return).toBe(true);
    expect(readdirSync(join(root, 'etc/rc2.d'))).toEqual(['S01brine-db']);
    expect((await h.call('service.disable', ['brine-db'])).return).toBe(true);
    // update-rc.d disable without links: "no runlevel symlinks to modify", False.
    expect((await h.call('service.disable', ['brine-web'])).return).toBe(false);
    expect((await h.call('service.enable', ['nope'])).return).toBe(false);
  });

  it('service.running and service.dead: test mode, start, already running, enable, kill, with Salt 3007 comments and changes', async () => {
    expect(await one('service.running', 'brine-web', { test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-web is set to start',
      changes: {},
    });
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect(await one('service.running', 'brine-web')).toMatchObject({
      result: true,
      comment: 'Started service brine-web',
      changes: { 'brine-web': true },
    });
    expect(await one('service.running', 'brine-web')).toMatchObject({
      result: true,
      comment: 'The service brine-web is already running',
      changes: {},
    });
    expect(await one('service.running', 'brine-web', { enable: true, test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-web set to be enabled',
    });
    // A string is read as Salt's is_true reads it ('True' is true; 'yes' would be false).
    expect(await one('service.running', 'brine-web', { enable: 'True' })).toMatchObject({
      result: true,
      comment: 'Service brine-web has been enabled, and is in the desired state',
      changes: { 'brine-web': true },
    });
    expect(await one('service.dead', 'brine-web', { test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-web is set to be killed',
    });
    expect(await one('service.dead', 'brine-web', { enable: false })).toMatchObject({
      result: true,
      comment: 'Service brine-web has been disabled, and is dead',
      // Salt's _disable replaces the changes {brine-web: False} of the stop with its own.
      changes: { 'brine-web': true },
    });
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect(await one('service.dead', 'brine-web')).toMatchObject({
      result: true,
      comment: 'The service brine-web is already dead',
      changes: {},
    });
    expect(await one('service.running', 'brine-web', { enabled: true })).toMatchObject({
      result: false,
      comment: 'Service brine-web uses non-existent option "enabled".  Perhaps "enable" option was intended?',
    });
  });

  it('a service that is not there: running fails, dead succeeds, test mode says what would have happened', async () => {
    expect(await one('service.running', 'nope')).toMatchObject({
      result: false,
      comment: 'The named service nope is not available',
      changes: {},
    });
    expect(await one('service.running', 'nope', { test: true })).toMatchObject({
      result: null,
      comment: 'Service nope not present; if created in this state run, it would have been started',
    });
    expect(await one('service.dead', 'nope')).toMatchObject({ result: true, comment: 'The named service nope is not available' });
    expect(await one('service.enabled', 'nope', { test: true })).toMatchObject({
      result: null,
      comment: 'Service nope not present; if created in this state run, it would have been enabled',
    });
    expect(await one('service.disabled', 'nope')).toMatchObject({ result: true, comment: 'The named service nope is not available' });
  });

  it('service.enabled and service.disabled', async () => {
    expect(await one('service.enabled', 'brine-db', { test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-db set to be enabled',
    });
    expect(await one('service.enabled', 'brine-db')).toMatchObject({
      result: true,
      comment: 'Service brine-db has been enabled, and is in the desired state',
      changes: { 'brine-db': true },
    });
    expect(await one('service.enabled', 'brine-db')).toMatchObject({
      result: true,
      comment: 'Service brine-db is already enabled, and is in the desired state',
      changes: {},
    });
    expect(await one('service.disabled', 'brine-db', { test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-db set to be disabled',
    });
    expect(await one('service.disabled', 'brine-db')).toMatchObject({
      result: true,
      comment: 'Service brine-db has been disabled, and is in the desired state',
      changes: { 'brine-db': true },
    });
    expect(await one('service.disabled', 'brine-db')).toMatchObject({
      comment: 'Service brine-db is already disabled, and is in the desired state',
      changes: {},
    });
    expect(await one('service.masked', 'brine-db')).toMatchObject({
      result: false,
      comment: 'Service masking not available on this minion',
    });
  });

  it('watch: a changed file restarts the running daemon (mod_watch), reload: True reloads it, test mode only says so', async () => {
    const conf = join(root, 'etc/brine-web.conf');
    const apply = async (content: string, reload: boolean, test = false): Promise<Record<string, Ran>> => {
      const res = await h.call('state.apply', ['web'], { pillar: { conf, content, reload }, ...(test ? { test: true } : {}) });
      return res.return as Record<string, Ran>;
    };
    const svc = (ret: Record<string, Ran>): Ran => Object.entries(ret).find(([k]) => k.startsWith('service_|-'))![1];
    // Not running: the state starts it; the watch has nothing more to do (Salt skips mod_watch after changes).
    const first = await apply('one', false);
    expect(svc(first)).toMatchObject({ result: true, comment: 'Started service brine-web', changes: { 'brine-web': true } });
    const pid = pidOf(root, 'brine-web');
    expect(svc(await apply('two', false, true))).toMatchObject({ result: null, comment: 'Service is set to be restarted', changes: {} });
    expect(pidOf(root, 'brine-web')).toBe(pid);
    expect(svc(await apply('two', false))).toMatchObject({ result: true, comment: 'Service restarted', changes: { 'brine-web': true } });
    const restarted = pidOf(root, 'brine-web');
    expect(restarted).not.toBe(pid);
    expect(svc(await apply('three', true))).toMatchObject({ result: true, comment: 'Service reloaded', changes: { 'brine-web': true } });
    expect(pidOf(root, 'brine-web')).toBe(restarted);
    expect(svc(await apply('three', true))).toMatchObject({
      result: true,
      comment: 'The service brine-web is already running',
      changes: {},
    });
    expect(readFileSync(conf, 'utf8')).toBe('three\n');
  });
});

describe.skipIf(!hasTools)('service on OpenRC (Alpine): real init scripts, a stand-in rc-update', () => {
  let h: Harness;
  let root: string;
  const saved = { PATH: process.env.PATH, root: process.env.BRINE_OPENRC_ROOT };

  beforeAll(async () => {
    root = makeRoot('brine-openrc-', ['brine-web', 'sshd']);
    process.env.BRINE_OPENRC_ROOT = root;
    process.env.PATH = `${fixture('openrc-standin')}:${process.env.PATH}`;
    h = await createHarness({
      shell: new NodeShell(),
      grains: { kernel: 'Linux', os: 'Alpine', os_family: 'Alpine', init: 'unknown' },
      config: { service_root: root },
      pillar: {},
    });
  });
  afterAll(() => {
    process.env.PATH = saved.PATH;
    if (saved.root === undefined) delete process.env.BRINE_OPENRC_ROOT;
    else process.env.BRINE_OPENRC_ROOT = saved.root;
    stopAll(root);
  });

  it('runs the init scripts, and manages runlevels through rc-update (default, or runlevels=)', async () => {
    expect((await h.call('service.get_all')).return).toEqual({ 'brine-web': [], sshd: [] });
    expect((await h.call('service.start', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-*'])).return).toEqual({ 'brine-web': true });
    expect((await h.call('service.get_running')).return).toEqual(['brine-web']);
    expect((await h.call('service.stop', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.enable', ['sshd'])).return).toBe(true);
    expect(readlinkSync(join(root, 'etc/runlevels/default/sshd'))).toBe(join(root, 'etc/init.d/sshd'));
    expect((await h.call('service.get_enabled')).return).toEqual({ sshd: ['default'] });
    expect((await h.call('service.enable', ['sshd'], { runlevels: ['boot', 'sysinit'] })).return).toBe(true);
    expect((await h.call('service.get_enabled')).return).toEqual({ sshd: ['boot', 'sysinit'] });
    expect((await h.call('service.enabled', ['sshd'], { runlevels: 'boot' })).return).toBe(true);
    expect((await h.call('service.enabled', ['sshd'], { runlevels: 'default' })).return).toBe(false);
    expect((await h.call('service.disable', ['sshd'], { runlevels: 'boot' })).return).toBe(true);
    expect((await h.call('service.get_enabled')).return).toEqual({ sshd: ['sysinit'] });
    expect((await h.call('service.disable', ['sshd'])).return).toBe(true);
    expect((await h.call('service.disabled', ['sshd'])).return).toBe(true);
    expect((await h.call('service.get_disabled')).return).toEqual(['brine-web', 'sshd']);
    expect((await h.call('service.enable', ['nope'])).return).toBe(false);
    expect((await h.call('service.available', ['nope'])).return).toBe(false);
  });

  it('service.running with enable: True starts it and adds it to the default runlevel', async () => {
    const res = await h.call('state.single', ['service.running', 'brine-web'], { enable: true });
    expect(Object.values(res.return as Record<string, Ran>)[0]).toMatchObject({
      result: true,
      comment: 'Service brine-web has been enabled, and is running',
      changes: { 'brine-web': true },
    });
    expect((await h.call('service.enabled', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-web'])).return).toBe(true);
  });
});

describe.skipIf(!hasTools)('service on sysvinit (Red Hat family before systemd): real init scripts, a stand-in chkconfig', () => {
  let h: Harness;
  let root: string;
  const saved = { PATH: process.env.PATH, root: process.env.BRINE_CHKCONFIG_ROOT };

  beforeAll(async () => {
    root = makeRoot('brine-rh-', ['brine-web', 'crond']);
    process.env.BRINE_CHKCONFIG_ROOT = root;
    process.env.PATH = `${fixture('chkconfig-standin')}:${process.env.PATH}`;
    const grains = { kernel: 'Linux', os: 'CentOS', os_family: 'RedHat', osrelease_info: [6, 10], init: 'upstart' };
    h = await createHarness({ shell: new NodeShell(), grains, config: { service_root: root }, pillar: {} });
  });
  afterAll(() => {
    process.env.PATH = saved.PATH;
    if (saved.root === undefined) delete process.env.BRINE_CHKCONFIG_ROOT;
    else process.env.BRINE_CHKCONFIG_ROOT = saved.root;
    stopAll(root);
  });

  it('enables with chkconfig --add and on (runlevel 3 where runlevel is unknown), disables with off, deletes with --del', async () => {
    // Salt's get_all lists what chkconfig lists: nothing is added yet, though the scripts are there.
    expect((await h.call('service.get_all')).return).toEqual([]);
    expect((await h.call('service.available', ['crond'])).return).toBe(true);
    expect((await h.call('service.missing', ['nope'])).return).toBe(true);
    expect((await h.call('service.enabled', ['crond'])).return).toBe(false);
    expect((await h.call('service.enable', ['crond'])).return).toBe(true);
    expect(readlinkSync(join(root, 'etc/rc.d/rc3.d/S55crond'))).toBe('../init.d/crond');
    expect(readlinkSync(join(root, 'etc/rc.d/rc0.d/K25crond'))).toBe('../init.d/crond');
    expect((await h.call('service.enabled', ['crond'])).return).toBe(true);
    expect((await h.call('service.get_enabled')).return).toEqual(['crond']);
    expect((await h.call('service.disable', ['crond'])).return).toBe(true);
    expect(readdirSync(join(root, 'etc/rc.d/rc3.d'))).toEqual(['K25crond']);
    expect((await h.call('service.disabled', ['crond'])).return).toBe(true);
    expect((await h.call('service.get_disabled')).return).toEqual(['crond']);
    expect((await h.call('service.get_all')).return).toEqual(['crond']);
    expect((await h.call('service.delete', ['crond'])).return).toBe(true);
    expect((await h.call('service.get_all')).return).toEqual([]);
    expect((await h.call('service.enable', ['nope'])).return).toBe(false);
  });

  it('service.running with enable: True starts the real daemon and turns it on; dead stops it', async () => {
    const one = async (fun: string, kwargs: Record<string, unknown> = {}): Promise<Ran> =>
      Object.values((await h.call('state.single', [fun, 'brine-web'], kwargs)).return as Record<string, Ran>)[0];
    expect(await one('service.running', { enable: true })).toMatchObject({
      result: true,
      comment: 'Service brine-web has been enabled, and is running',
      changes: { 'brine-web': true },
    });
    expect((await h.call('service.get_running')).return).toEqual(['brine-web']);
    expect(await one('service.dead')).toMatchObject({
      result: true,
      comment: 'Service brine-web was killed',
      changes: { 'brine-web': false },
    });
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
  });
});
