import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';

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
  it('is unavailable where init is not systemd, saying why', async () => {
    const h = await createHarness({ grains: { init: 'runit' } });
    expect((await h.call('service.status', ['ssh'])).return).toBe(
      "'service' __virtual__ returned False: brine's service module drives systemd; this host's init is runit",
    );
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
    h = await createHarness({ shell: new NodeShell(), grains: { init: 'systemd' } });
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

  it("the real systemctl's refusal without a running systemd is the error", async () => {
    const real = await createHarness({ shell: new NodeShell(), grains: { init: 'systemd' } });
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
