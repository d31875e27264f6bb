import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';
import { serviceBackend } from '../../../plugins/service/backend';

const UNIT = '[Unit]\nDescription=brine test\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n';

const hasSystemctl = (() => {
  try {
    execFileSync('/usr/bin/systemctl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('service module availability', () => {
  it('is unavailable where no backend fits (no systemd, no OpenRC, no sysvinit distribution), saying why', async () => {
    const h = await createHarness({ grains: { init: 'runit', os: 'Void', kernel: 'Linux' }, pillar: {} });
    expect((await h.call('service.status', ['ssh'])).return).toBe(
      "'service' __virtual__ returned False: no service backend for this host (init runit, os Void): " +
        'brine drives systemd, OpenRC (Gentoo, Alpine) and sysvinit (Debian family; Red Hat family before systemd)',
    );
    // Without a service module the service states are not loaded either (Salt's states/service.py __virtual__).
    // state.single answers it as Salt's does, with verify_data's list.
    expect((await h.call('state.single', ['service.running', 'ssh'])).return).toEqual(["Specified state 'service.running' was not found"]);
  });

  it("is chosen by grains as Salt's __virtual__ functions choose", () => {
    const cases: [Record<string, unknown>, string | null][] = [
      [{ kernel: 'Linux', init: 'systemd', os: 'Debian' }, 'systemd'],
      [{ kernel: 'Linux', init: 'systemd', os: 'Gentoo' }, 'systemd'],
      [{ kernel: 'Linux', init: 'unknown', os: 'Debian' }, 'debian'],
      [{ kernel: 'Linux', init: 'sysvinit', os: 'Devuan' }, 'debian'],
      [{ kernel: 'Linux', init: 'openrc', os: 'Gentoo' }, 'openrc'],
      [{ kernel: 'Linux', init: 'unknown', os: 'Alpine' }, 'openrc'],
      [{ kernel: 'Linux', init: 'upstart', os: 'CentOS', osrelease_info: [6, 10] }, 'rh'],
      [{ kernel: 'Linux', init: 'unknown', os: 'Amazon', osrelease_info: [2018, 3] }, 'rh'],
      [{ kernel: 'Linux', init: 'unknown', os: 'CentOS', osrelease_info: [7, 9] }, null],
      [{ kernel: 'Linux', init: 'unknown', os: 'Ubuntu' }, null],
    ];
    for (const [grains, want] of cases) expect([grains, serviceBackend(grains)]).toEqual([grains, want]);
  });
});

/**
 * systemd cannot run in this container, so the runtime verbs (start, stop, is-active, list-units)
 * go to a stand-in systemctl of the tests (fixtures/systemctl-standin) that keeps unit states in a
 * directory and answers with systemd's texts and exit codes. Enabling and disabling use the real
 * systemctl on unit files below a temporary root (`systemctl --root`), as they do on a real host.
 * The real systemctl's refusal to start anything without systemd is checked too.
 */
describe.skipIf(!hasSystemctl)('service module on systemctl', () => {
  let h: Harness;
  let dir: string;
  const saved = { PATH: process.env.PATH, state: process.env.BRINE_SYSTEMD_STATE, root: process.env.BRINE_SYSTEMD_ROOT };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-service-'));
    mkdirSync(join(dir, 'root/etc/systemd/system'), { recursive: true });
    mkdirSync(join(dir, 'state'));
    writeFileSync(join(dir, 'root/etc/systemd/system/brine-web.service'), UNIT);
    writeFileSync(join(dir, 'root/etc/systemd/system/brine-db.service'), UNIT);
    process.env.BRINE_SYSTEMD_STATE = join(dir, 'state');
    process.env.BRINE_SYSTEMD_ROOT = join(dir, 'root');
    process.env.PATH = `${fixture('systemctl-standin')}:${process.env.PATH}`;
    h = await createHarness({
      shell: new NodeShell(),
      grains: { kernel: 'Linux', init: 'systemd' },
      config: { service_root: join(dir, 'root') },
      pillar: {},
    });
  });
  afterAll(() => {
    process.env.PATH = saved.PATH;
    for (const [k, v] of [
      ['BRINE_SYSTEMD_STATE', saved.state],
      ['BRINE_SYSTEMD_ROOT', saved.root],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('start, status, restart, stop, get_running; an unknown unit is an error with systemctl words', async () => {
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect((await h.call('service.start', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-*'])).return).toEqual({ 'brine-db': false, 'brine-web': true });
    expect((await h.call('service.get_running')).return).toEqual(['brine-web']);
    expect((await h.call('service.restart', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.reload', ['brine-web.service'])).return).toBe(true);
    expect((await h.call('service.stop', ['brine-web'])).return).toBe(true);
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
    expect(await h.call('service.start', ['nope'])).toEqual({
      return: 'ERROR: Failed to start nope.service: Unit nope.service not found.',
      retcode: 1,
      success: false,
      out: 'nested',
    });
  });

  it("a unit file changed on disk makes systemd reload its units before acting (Salt's _check_for_unit_changes)", async () => {
    const state = join(dir, 'state');
    writeFileSync(join(state, 'brine-web.service.changed'), '');
    expect((await h.call('service.restart', ['brine-web'])).return).toBe(true);
    expect(readFileSync(join(state, 'daemon-reloads'), 'utf8')).toBe('reloaded\n');
    expect(existsSync(join(state, 'brine-web.service.changed'))).toBe(false);
    // Nothing changed since: no second reload.
    expect((await h.call('service.stop', ['brine-web'])).return).toBe(true);
    expect(readFileSync(join(state, 'daemon-reloads'), 'utf8')).toBe('reloaded\n');
  });

  it('enable, enabled, disable, disabled, get_enabled, get_disabled, get_all, available, missing (real systemctl --root)', async () => {
    const root = join(dir, 'root');
    expect((await h.call('service.enabled', ['brine-web'], { root })).return).toBe(false);
    expect((await h.call('service.enable', ['brine-web'], { root })).return).toBe(true);
    expect((await h.call('service.enabled', ['brine-web'], { root })).return).toBe(true);
    expect((await h.call('service.get_enabled', [], { root })).return).toEqual(['brine-web']);
    expect((await h.call('service.get_disabled', [], { root })).return).toEqual(['brine-db']);
    expect((await h.call('service.disable', ['brine-web'], { root })).return).toBe(true);
    expect((await h.call('service.disabled', ['brine-web'], { root })).return).toBe(true);
    expect((await h.call('service.get_all', [], { root })).return).toEqual(['brine-db', 'brine-web']);
    expect((await h.call('service.available', ['brine-db'])).return).toBe(true);
    expect((await h.call('service.missing', ['brine-nope'])).return).toBe(true);
    const bad = await h.call('service.enable', ['brine-nope'], { root });
    expect(bad).toEqual({
      return: 'ERROR: Failed to enable unit, unit brine-nope.service does not exist.',
      retcode: 1,
      success: false,
      out: 'nested',
    });
  });

  it('mask, masked, unmask (real systemctl --root under service_root), and the masked/unmasked states', async () => {
    // A vendor unit in /usr/lib, masked by a link in /etc, as on a real host.
    mkdirSync(join(dir, 'root/usr/lib/systemd/system'), { recursive: true });
    writeFileSync(join(dir, 'root/usr/lib/systemd/system/brine-mask.service'), UNIT);
    const link = join(dir, 'root/etc/systemd/system/brine-mask.service');
    const one = async (fun: string, kwargs: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
      Object.values((await h.call('state.single', [fun, 'brine-mask'], kwargs)).return as Record<string, Record<string, unknown>>)[0];
    expect((await h.call('service.masked', ['brine-mask'])).return).toBe(false);
    expect(await one('service.masked', { test: true })).toMatchObject({
      result: null,
      comment: 'Service brine-mask would be masked',
      changes: { masked: { old: false, new: true } },
    });
    expect(await one('service.masked')).toMatchObject({
      result: true,
      comment: 'Service brine-mask was masked',
      changes: { masked: { old: false, new: true } },
    });
    expect(readlinkSync(link)).toBe('/dev/null');
    expect((await h.call('service.masked', ['brine-mask'])).return).toBe(true);
    expect(await one('service.masked')).toMatchObject({ result: true, comment: 'Service brine-mask is already masked', changes: {} });
    // A masked unit does not start (the stand-in refuses as systemd does); running with unmask lifts the mask first.
    expect(await one('service.unmasked', { test: true })).toMatchObject({ result: null, comment: 'Service brine-mask would be unmasked' });
    expect(await one('service.running', { unmask: true })).toMatchObject({
      result: true,
      comment: 'Started service brine-mask\nService brine-mask was unmasked',
      changes: { 'brine-mask': true },
    });
    expect((await h.call('service.masked', ['brine-mask'])).return).toBe(false);
    expect(await one('service.unmasked')).toMatchObject({ result: true, comment: 'Service brine-mask was already unmasked', changes: {} });
    expect((await h.call('service.mask', ['brine-mask'])).return).toBe(true);
    expect(await h.call('service.start', ['brine-mask'])).toMatchObject({
      return: 'ERROR: Failed to start brine-mask.service: Unit brine-mask.service is masked.',
    });
    expect((await h.call('service.unmask', ['brine-mask'])).return).toBe(true);
    expect((await h.call('service.masked', ['brine-mask'])).return).toBe(false);
    expect((await h.call('service.stop', ['brine-mask'], { no_block: true })).return).toBe(true);
  });

  it('service.running, dead and a watch through systemd: enable and disable are real systemctl --root', async () => {
    const one = async (fun: string, kwargs: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
      Object.values((await h.call('state.single', [fun, 'brine-web'], kwargs)).return as Record<string, Record<string, unknown>>)[0];
    expect(await one('service.running', { enable: true })).toMatchObject({
      result: true,
      comment: 'Service brine-web has been enabled, and is running',
      changes: { 'brine-web': true },
    });
    // The link systemctl makes points inside the root as the host will see it (/etc/systemd/system/...).
    expect(readlinkSync(join(dir, 'root/etc/systemd/system/multi-user.target.wants/brine-web.service'))).toBe(
      '/etc/systemd/system/brine-web.service',
    );
    expect(await one('service.mod_watch', { sfun: 'running', reload: true })).toMatchObject({ result: true, comment: 'Service reloaded' });
    expect(await one('service.dead', { enable: false })).toMatchObject({
      result: true,
      comment: 'Service brine-web has been disabled, and is dead',
      changes: { 'brine-web': true },
    });
    expect((await h.call('service.status', ['brine-web'])).return).toBe(false);
  });

  it("the real systemctl's refusal without a running systemd is the error", async () => {
    const real = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux', init: 'systemd' } });
    process.env.PATH = saved.PATH;
    try {
      const res = await real.call('service.start', ['brine-web']);
      expect(res.retcode).toBe(1);
      expect(res.return).toMatch(/^ERROR: System has not been booted with systemd/);
    } finally {
      process.env.PATH = `${fixture('systemctl-standin')}:${saved.PATH}`;
    }
  });
});
