/**
 * The dnf/yum and apk backends of `pkg`. This machine is Debian: dnf, yum and apk cannot reach a
 * repository here, so these tests give the modules the outputs those tools print (fixtures in
 * fixtures/command-output/pkg/, see its README) through a fake shell, and check both what the
 * modules read from them and the exact commands they build. The apt backend runs against the real
 * apt/dpkg in pkg-module.test.ts; rpm itself runs for real in pkg-verify-rpm.test.ts (pkg.verify).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { parseRpmQa, parseVersionlock, parseYumList, rpmvercmp, rpmVersionCmp } from '../../../plugins/pkg/rpm-parse';
import { parseApkInfo, parseApkSearch, parseApkUpgrades } from '../../../plugins/pkg/apk-parse';

const FIX = join(__dirname, '../fixtures/command-output/pkg');
const out = (name: string): string => readFileSync(join(FIX, name), 'utf8');

describe('rpm, dnf and yum output readers', () => {
  it('rpm -qa: epochs, a 32-bit package as name.arch, noarch, gpg-pubkey, several kernels', () => {
    expect(parseRpmQa(out('rpm-qa.txt'), 'x86_64')).toEqual({
      bash: ['5.1.8-9.el9'],
      'openssl-libs': ['1:3.0.7-27.el9'],
      glibc: ['2.34-100.el9'],
      'glibc.i686': ['2.34-100.el9'],
      tzdata: ['2024a-1.el9'],
      kernel: ['5.14.0-362.8.1.el9_3', '5.14.0-284.11.1.el9_2'],
      'gpg-pubkey.(none)': ['350d275d-6279464b'],
      'python3-dnf-plugin-versionlock': ['4.3.0-11.el9'],
    });
  });

  it('dnf/yum list: headers dropped, a name wrapped onto its own line', () => {
    expect(parseYumList(out('dnf-list-upgrades.txt'), 'x86_64').map((p) => [p.name, p.version, p.repoid])).toEqual([
      ['bash', '5.1.8-9.el9_4', 'baseos'],
      ['openssl-libs', '1:3.0.7-28.el9_4', 'baseos'],
      ['python3-dnf-plugin-versionlock', '4.3.0-13.el9', 'baseos'],
    ]);
    expect(parseYumList(out('yum-list-updates.txt'), 'x86_64').map((p) => [p.name, p.version])).toEqual([
      ['bash', '4.2.46-35.el7_9'],
      ['python-perf-debuginfo-common', '3.10.0-1160.108.1.el7'],
    ]);
  });

  it('versionlock list of dnf and of yum, in full and as names', () => {
    expect(parseVersionlock(out('dnf-versionlock-list.txt'), 'dnf', true)).toEqual([
      'bash-0:5.1.8-9.el9.*',
      'openssl-libs-1:3.0.7-27.el9.*',
    ]);
    expect(parseVersionlock(out('dnf-versionlock-list.txt'), 'dnf', false)).toEqual(['bash', 'openssl-libs']);
    expect(parseVersionlock(out('yum-versionlock-list.txt'), 'yum', true)).toEqual([
      '0:bash-4.2.46-34.el7.*',
      '1:openssl-libs-1.0.2k-26.el7_9.*',
    ]);
    expect(parseVersionlock(out('yum-versionlock-list.txt'), 'yum', false)).toEqual(['bash', 'openssl-libs']);
  });

  it("rpm's version order (rpmvercmp's own test cases) and epoch/release handling", () => {
    const table: [string, string, number][] = [
      ['1.0', '1.0', 0],
      ['1.0', '2.0', -1],
      ['2.0.1', '2.0', 1],
      ['2.0', '2.0.1', -1],
      ['5.5p1', '5.5p2', -1],
      ['5.5p10', '5.5p1', 1],
      ['10xyz', '10.1xyz', -1],
      ['xyz10', 'xyz10.1', -1],
      ['1.0aa', '1.0a', 1],
      ['1.0', '1.0a', -1],
      ['2a', '2.0', -1],
      ['1.0~rc1', '1.0', -1],
      ['1.0~rc1', '1.0~rc2', -1],
      ['1.0^', '1.0', 1],
      ['1.0^git1', '1.0^git2', -1],
      ['1.0^git1', '1.01', -1],
      ['001', '1', 0],
      ['1.el9_4', '1.el9', 1],
    ];
    for (const [a, b, want] of table) expect([a, b, rpmvercmp(a, b)]).toEqual([a, b, want]);
    expect(rpmVersionCmp('1:3.0.7-27.el9', '3.0.7-28.el9')).toBe(1);
    expect(rpmVersionCmp('1:3.0.7-27.el9', '3.0.7-28.el9', true)).toBe(-1);
    expect(rpmVersionCmp('3.2', '3.2-1')).toBe(0);
  });
});

describe('apk output readers', () => {
  it('apk info -v, apk upgrade -s, apk search', () => {
    expect(parseApkInfo(out('apk-info-v.txt'))).toEqual({
      'alpine-baselayout': ['3.4.3-r2'],
      busybox: ['1.36.1-r15'],
      'ca-certificates-bundle': ['20240226-r0'],
      libcrypto3: ['3.1.4-r5'],
      musl: ['1.2.4_git20230717-r4'],
    });
    expect(parseApkUpgrades(out('apk-upgrade-s.txt'))).toEqual({ busybox: '1.36.1-r19', libcrypto3: '3.1.7-r0' });
    expect(parseApkSearch(out('apk-search-curl.txt'), 'curl')).toBe('8.9.1-r1');
    expect(parseApkSearch(out('apk-search-curl.txt'), 'wget')).toBe('');
  });
});

type Reply = { stdout?: string; stderr?: string; retcode?: number };

/** A fake shell answering each command line (joined by spaces) from a table, recording what ran. */
function scripted(table: (cmd: string) => Reply | undefined): { shell: ReturnType<typeof fakeShell>; ran: string[] } {
  const ran: string[] = [];
  const shell = fakeShell((command) => {
    const cmd = Array.isArray(command) ? command.join(' ') : command;
    ran.push(cmd);
    return table(cmd) ?? {};
  });
  return { shell, ran };
}

const RPM_QA =
  'rpm -qa --nodigest --nosignature --queryformat %{NAME}_|-%{EPOCH}_|-%{VERSION}_|-%{RELEASE}_|-%{ARCH}_|-(none)_|-%{INSTALLTIME}\n';

describe('pkg on the RHEL family (dnf), through the module with the outputs dnf prints', () => {
  let bin: string;
  let savedPath: string | undefined;
  let installedNginx = false;
  let h: Harness;
  let ran: string[];

  beforeAll(async () => {
    // Salt's __virtual__ looks for dnf on PATH: a PATH holding an executable named dnf (never run).
    bin = mkdtempSync(join(tmpdir(), 'brine-dnf-'));
    writeFileSync(join(bin, 'dnf'), '#!/bin/sh\nexit 99\n');
    chmodSync(join(bin, 'dnf'), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = bin;
    const s = scripted((cmd) => {
      if (cmd === RPM_QA)
        return { stdout: out('rpm-qa.txt') + (installedNginx ? 'nginx_|-2_|-1.20.1_|-14.el9_2.1_|-x86_64_|-(none)_|-1701600009\n' : '') };
      if (cmd.startsWith('dnf --quiet list available ')) return { stdout: out('dnf-list-available.txt') };
      if (cmd === 'dnf --quiet list --upgrades') return { stdout: out('dnf-list-upgrades.txt') };
      if (cmd === 'dnf versionlock list') return { stdout: out('dnf-versionlock-list.txt') };
      if (cmd === 'dnf --quiet --assumeyes check-update') return { retcode: 100 };
      if (cmd.startsWith('dnf -y --best --allowerasing install')) {
        installedNginx = true;
        return {};
      }
      if (cmd === 'dnf -y remove nginx') {
        installedNginx = false;
        return {};
      }
      return undefined;
    });
    ran = s.ran;
    h = await createHarness({
      shell: s.shell,
      grains: { os_family: 'RedHat', os: 'Rocky', osarch: 'x86_64', osmajorrelease: 9, kernel: 'Linux' },
      pillar: {},
    });
  });

  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(bin, { recursive: true, force: true });
  });

  const call = async (fun: string, args: unknown[] = [], kwargs?: Record<string, unknown>): Promise<unknown> => {
    ran.length = 0;
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };

  it('is the pkg module of a RedHat host, with the functions apt has and verify', async () => {
    const docs = (await call('sys.doc', ['pkg.'])) as Record<string, string>;
    for (const f of [
      'version',
      'list_pkgs',
      'latest_version',
      'install',
      'remove',
      'purge',
      'upgrade',
      'list_upgrades',
      'refresh_db',
      'hold',
      'unhold',
      'verify',
    ])
      expect(docs[`pkg.${f}`], f).toEqual(expect.any(String));
  });

  it('list_pkgs, version, version_cmp, refresh_db, list_upgrades, latest_version', async () => {
    expect(await call('pkg.list_pkgs')).toMatchObject({
      bash: '5.1.8-9.el9',
      'openssl-libs': '1:3.0.7-27.el9',
      kernel: '5.14.0-362.8.1.el9_3,5.14.0-284.11.1.el9_2',
    });
    expect(await call('pkg.list_pkgs', [], { purge_desired: true })).toEqual({});
    expect(await call('pkg.version', ['bash', 'nginx'])).toEqual({ bash: '5.1.8-9.el9', nginx: '' });
    expect(await call('pkg.version_cmp', ['1:1.0-1', '2.0-1'])).toBe(1);
    expect(await call('pkg.refresh_db')).toBe(true);
    expect(ran).toEqual(['dnf --quiet --assumeyes clean expire-cache', 'dnf --quiet --assumeyes check-update']);
    expect(await call('pkg.list_upgrades', [], { refresh: false })).toEqual({
      bash: '5.1.8-9.el9_4',
      'openssl-libs': '1:3.0.7-28.el9_4',
      'python3-dnf-plugin-versionlock': '4.3.0-13.el9',
    });
    expect(await call('pkg.latest_version', ['bash', 'nginx'], { refresh: false })).toEqual({
      bash: '5.1.8-9.el9_4',
      nginx: '2:1.20.1-14.el9_2.1',
    });
    expect(ran).toContain('dnf --quiet list available bash nginx');
  });

  it('install (a version, leaving out the epoch as Salt does), remove, upgrade: commands and changes', async () => {
    expect(await call('pkg.install', ['nginx'], { version: '2:1.20.1-14.el9_2.1' })).toEqual({
      nginx: { old: '', new: '2:1.20.1-14.el9_2.1' },
    });
    expect(ran).toContain('dnf -y --best --allowerasing install nginx-1.20.1-14.el9_2.1');
    expect(await call('pkg.install', [], { pkgs: [{ tzdata: '2023c-1.el9' }], fromrepo: 'baseos' })).toEqual({});
    expect(ran).toContain('dnf -y --disablerepo=* --enablerepo=baseos downgrade tzdata-2023c-1.el9');
    expect(await call('pkg.remove', ['nginx'])).toEqual({ nginx: { old: '2:1.20.1-14.el9_2.1', new: '' } });
    expect(ran).toContain('dnf -y remove nginx');
    expect(await call('pkg.upgrade', [], { refresh: false })).toEqual({});
    expect(ran).toContain('dnf --quiet -y upgrade');
  });

  it('the pkg states over dnf: installed in test mode and with a version condition, held', async () => {
    const state = async (fun: string, name: string, kwargs: Record<string, unknown> = {}): Promise<unknown> => {
      const res = await h.call('state.single', [fun, name], kwargs);
      const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
      return { changes: ret.changes, result: ret.result, comment: ret.comment };
    };
    expect(await state('pkg.installed', 'nginx', { test: true })).toEqual({
      changes: { nginx: { new: '2:1.20.1-14.el9_2.1', old: '' } },
      result: null,
      comment: 'The following packages would be installed/updated: nginx',
    });
    expect(await state('pkg.installed', 'web', { pkgs: [{ bash: '>=5.1' }, 'tzdata'] })).toEqual({
      changes: {},
      result: true,
      comment: 'All specified packages are already installed and are at the desired version',
    });
    expect(await state('pkg.installed', 'bash', { version: '<5', test: true })).toMatchObject({
      result: null,
      comment: 'The following packages would be installed/updated: bash',
    });
    expect(await state('pkg.held', 'bash')).toEqual({ changes: {}, result: true, comment: 'No changes made' });
    expect(await state('pkg.held', 'tzdata', { test: true })).toEqual({
      changes: {},
      result: true,
      comment: 'The following package would be held: tzdata',
    });
    expect(await state('pkg.removed', 'nginx')).toEqual({
      changes: {},
      result: true,
      comment: 'All specified packages are already absent',
    });
  });

  it('hold and unhold through versionlock, a held package not upgraded without update_holds', async () => {
    expect(await call('pkg.list_holds')).toEqual(['bash-0:5.1.8-9.el9.*', 'openssl-libs-1:3.0.7-27.el9.*']);
    expect(await call('pkg.hold', ['tzdata'])).toEqual({
      tzdata: { name: 'tzdata', changes: { new: 'hold', old: '' }, result: true, comment: 'Package tzdata is now being held.' },
    });
    expect(ran).toContain('dnf versionlock tzdata');
    expect(((await call('pkg.hold', ['bash'])) as Record<string, { comment: string }>).bash.comment).toBe(
      'Package bash is already set to be held.',
    );
    expect(await call('pkg.unhold', ['bash'])).toEqual({
      bash: { name: 'bash', changes: { new: '', old: 'hold' }, result: true, comment: 'Package bash is no longer held.' },
    });
    expect(ran).toContain('dnf versionlock delete bash');
    const res = await h.call('pkg.install', ['bash'], { version: '5.1.8-9.el9_4' });
    expect(res.retcode).toBe(1);
    expect(String(res.return)).toContain("could not be updated because they are being held: bash. Set 'update_holds' to True");
  });
});

describe('pkg on Alpine (apk), through the module with the outputs apk prints', () => {
  let h: Harness;
  let ran: string[];
  let curl = false;

  beforeAll(async () => {
    const s = scripted((cmd) => {
      if (cmd === 'apk info -v') return { stdout: out('apk-info-v.txt') + (curl ? 'curl-8.9.1-r1\n' : '') };
      if (cmd === 'apk upgrade -s') return { stdout: out('apk-upgrade-s.txt') };
      if (cmd === 'apk search curl') return { stdout: out('apk-search-curl.txt') };
      if (cmd === 'apk version -t 1.36.1-r15 1.36.1-r19') return { stdout: '<\n' };
      if (cmd.startsWith('apk add')) curl = true;
      if (cmd.startsWith('apk del')) curl = false;
      return undefined;
    });
    ran = s.ran;
    h = await createHarness({ shell: s.shell, grains: { os_family: 'Alpine', os: 'Alpine', osarch: 'x86_64', kernel: 'Linux' } });
  });

  const call = async (fun: string, args: unknown[] = [], kwargs?: Record<string, unknown>): Promise<unknown> => {
    ran.length = 0;
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };

  it('list_pkgs, version, version_cmp, latest_version, list_upgrades, refresh_db', async () => {
    expect(await call('pkg.list_pkgs')).toMatchObject({ busybox: '1.36.1-r15', musl: '1.2.4_git20230717-r4' });
    expect(await call('pkg.version', ['busybox'])).toBe('1.36.1-r15');
    expect(await call('pkg.version_cmp', ['1.36.1-r15', '1.36.1-r19'])).toBe(-1);
    expect(await call('pkg.latest_version', ['busybox', 'curl'], { refresh: false })).toEqual({ busybox: '1.36.1-r19', curl: '8.9.1-r1' });
    expect(await call('pkg.list_upgrades')).toEqual({ busybox: '1.36.1-r19', libcrypto3: '3.1.7-r0' });
    expect(ran).toEqual(['apk update', 'apk upgrade -s']);
    expect(await call('pkg.refresh_db')).toBe(true);
  });

  it('install (with a version), upgrade, remove, purge: commands and changes', async () => {
    expect(await call('pkg.install', [], { pkgs: ['curl', { jq: '1.7.1-r0' }] })).toEqual({ curl: { old: '', new: '8.9.1-r1' } });
    expect(ran).toContain('apk add curl jq=1.7.1-r0');
    expect(await call('pkg.upgrade', [], { refresh: false })).toEqual({ changes: {}, result: true, comment: '' });
    expect(ran).toContain('apk upgrade');
    expect(await call('pkg.remove', ['curl'])).toEqual({ curl: { old: '8.9.1-r1', new: '' } });
    expect(ran).toContain('apk del curl');
    await call('pkg.purge', ['curl']);
    expect(ran).toContain('apk del --purge curl');
  });
});
