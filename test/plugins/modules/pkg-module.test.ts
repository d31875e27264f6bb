import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { parseDpkgQuery, parseJustPrint, parsePolicy, parseUpdate } from '../../../plugins/pkg/apt-parse';

const PKG = 'brine-testpkg';
const GRAINS = { os_family: 'Debian', cpuarch: 'x86_64', osarch: 'amd64', kernel: 'Linux' };

describe('pkg (apt) output readers', () => {
  it('dpkg-query: installed, removed, foreign architectures', () => {
    const out = [
      'install ok installed bash 5.2.15-2+b7 amd64',
      'hold ok installed vim 2:9.0.1378-2 amd64',
      'deinstall ok config-files oldpkg 1.0 amd64',
      'install ok installed libc6 2.36-9 i386',
      'install ok installed tzdata 2024a-0 all',
      'purge ok not-installed gone 1 amd64',
    ].join('\n');
    expect(parseDpkgQuery(out, { cpuarch: 'x86_64', osarch: 'amd64' })).toEqual({
      installed: { bash: ['5.2.15-2+b7'], vim: ['2:9.0.1378-2'], 'libc6:i386': ['2.36-9'], tzdata: ['2024a-0'] },
      removed: { oldpkg: ['1.0'] },
      purge_desired: {},
    });
  });

  it('apt-cache policy, apt-get update and --just-print', () => {
    const policy =
      'bash:\n  Installed: 5.2\n  Candidate: 5.3\n  Version table:\n     5.3 500\nnope:\n  Installed: (none)\n  Candidate: (none)\n';
    expect(parsePolicy(policy, ['bash', 'nope'])).toEqual({ bash: '5.3', nope: '' });
    const update =
      'Hit:1 http://deb.debian.org/debian bookworm InRelease\nGet:2 http://x y Packages [8,792 kB]\nIgn:3 http://z InRelease\nErr:4 http://w InRelease\n';
    expect(parseUpdate(update)).toEqual({
      repos: {
        'http://deb.debian.org/debian bookworm InRelease': null,
        'http://x y Packages': true,
        'http://z InRelease': false,
        'http://w InRelease': false,
      },
      errors: ['http://w InRelease'],
    });
    expect(parseJustPrint('Inst a [1] (2 stable)\nConf a (2 stable [all])\nConf b (3:1.0 x)\n')).toEqual({ a: '2', b: '3:1.0' });
  });

  it('sys.doc and sys.state_doc document the module and its states', async () => {
    const h = await createHarness({ grains: GRAINS });
    const docs = (await h.call('sys.doc', ['pkg.list_repo_pkgs'])).return as Record<string, string>;
    expect(docs['pkg.list_repo_pkgs']).toContain('apt-cache show');
    const states = (await h.call('sys.state_doc', ['pkg'])).return as Record<string, string>;
    expect(Object.keys(states).sort()).toEqual([
      'pkg',
      'pkg.held',
      'pkg.installed',
      'pkg.latest',
      'pkg.mod_watch',
      'pkg.purged',
      'pkg.removed',
      'pkg.unheld',
    ]);
    expect(states.pkg).toContain('Installation of packages');
    expect(states['pkg.installed']).toContain('Ensure that the package is installed');
  });

  it("pkg_verify where the backend has no pkg.verify (apt, as Salt's aptpkg): Salt's refusal, before anything runs", async () => {
    const h = await createHarness({ grains: GRAINS, pillar: {} });
    for (const pkgVerify of [true, [{ ignore_types: ['config'] }], []]) {
      const res = await h.call('state.single', ['pkg.installed', 'bash'], { pkg_verify: pkgVerify });
      const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
      expect([ret.result, ret.comment]).toEqual([false, 'pkg.verify not implemented']);
    }
  });

  it('is unavailable where no backend fits, saying why', async () => {
    const h = await createHarness({ grains: { os_family: 'Arch' } });
    expect((await h.call('pkg.version', ['bash'])).return).toBe(
      "'pkg' __virtual__ returned False: brine's pkg modules are apt (os_family Debian), dnf/yum (os_family RedHat) and apk (os_family Alpine); this host's os_family is Arch",
    );
  });
});

/**
 * The real apt and dpkg of this machine, on a package built here with dpkg-deb and served from a
 * local file: repository. APT_CONFIG points apt at that repository alone (its lists and cache in
 * the test's directory); dpkg's database is the machine's own, so this needs root. It installs,
 * upgrades, holds, downgrades and removes `brine-testpkg` (a package with no files), then purges it.
 */
/** Purge the test package if dpkg knows it, waiting for another apt/dpkg holding the lock. */
function purgeTestPackage(): void {
  const known =
    execFileSync('dpkg-query', ['-W', '-f', '${Status}', PKG], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
  if (!known) return;
  // A run stopped while the package was held leaves it held: apt refuses to remove a held package.
  execFileSync('dpkg', ['--set-selections'], { input: `${PKG} install\n`, stdio: ['pipe', 'ignore', 'ignore'] });
  execFileSync('apt-get', ['-q', '-y', '-o', 'DPkg::Lock::Timeout=120', 'purge', PKG], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

const canInstall =
  process.getuid?.() === 0 &&
  (() => {
    try {
      execFileSync('dpkg-deb', ['--version'], { stdio: 'ignore' });
      execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

describe.skipIf(!canInstall)('pkg on the real apt/dpkg (root)', () => {
  let h: Harness;
  let dir: string;
  let savedAptConfig: string | undefined;
  const debs: Record<string, string> = {};

  function buildDeb(version: string): string {
    const src = join(dir, `src-${version}`);
    mkdirSync(join(src, 'DEBIAN'), { recursive: true });
    writeFileSync(
      join(src, 'DEBIAN', 'control'),
      `Package: ${PKG}\nVersion: ${version}\nArchitecture: all\nMaintainer: brine tests <tests@example.invalid>\nDescription: brine test package\n`,
    );
    const deb = join(dir, 'repo', `${PKG}_${version}_all.deb`);
    execFileSync('dpkg-deb', ['--root-owner-group', '--build', src, deb], { stdio: 'ignore' });
    return deb;
  }

  /** The repository's Packages index, written as dpkg-scanpackages would. */
  function publish(versions: string[]): void {
    const stanzas = versions.map((v) => {
      const deb = debs[v];
      const control = execFileSync('dpkg-deb', ['-f', deb], { encoding: 'utf8' }).trim();
      const data = readFileSync(deb);
      const sha256 = createHash('sha256').update(data).digest('hex');
      return `${control}\nFilename: ./${PKG}_${v}_all.deb\nSize: ${statSync(deb).size}\nSHA256: ${sha256}\n`;
    });
    writeFileSync(join(dir, 'repo', 'Packages'), stanzas.join('\n'));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-pkg-'));
    for (const d of ['repo', 'lists/partial', 'cache/archives/partial', 'sources.list.d']) mkdirSync(join(dir, d), { recursive: true });
    debs['1.0'] = buildDeb('1.0');
    debs['2.0'] = buildDeb('2.0');
    publish(['1.0']);
    writeFileSync(join(dir, 'sources.list'), `deb [trusted=yes] file:${join(dir, 'repo')} ./\n`);
    writeFileSync(
      join(dir, 'apt.conf'),
      [
        `Dir::Etc::SourceList "${join(dir, 'sources.list')}";`,
        `Dir::Etc::SourceParts "${join(dir, 'sources.list.d')}";`,
        `Dir::State::Lists "${join(dir, 'lists')}";`,
        `Dir::Cache "${join(dir, 'cache')}";`,
        'Acquire::Languages "none";',
        'DPkg::Lock::Timeout "120";',
      ].join('\n') + '\n',
    );
    savedAptConfig = process.env.APT_CONFIG;
    process.env.APT_CONFIG = join(dir, 'apt.conf');
    try {
      purgeTestPackage();
    } catch {
      // dpkg-query fails for a package it never saw: nothing to purge.
    }
    h = await createHarness({ shell: new NodeShell(), grains: GRAINS, pillar: {} });
  });

  afterAll(() => {
    try {
      purgeTestPackage();
    } catch {
      // Never installed (the test stopped early): nothing to purge.
    } finally {
      if (savedAptConfig === undefined) delete process.env.APT_CONFIG;
      else process.env.APT_CONFIG = savedAptConfig;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const call = async (fun: string, args: unknown[] = [], kwargs?: Record<string, unknown>): Promise<unknown> => {
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };

  it('refresh_db, version, latest_version, install, list_pkgs, list_upgrades, hold, upgrade, downgrade, remove, purge', async () => {
    const refreshed = (await call('pkg.refresh_db')) as Record<string, unknown>;
    expect(Object.keys(refreshed).some((k) => k.includes(join(dir, 'repo')))).toBe(true);
    expect(await call('pkg.version', [PKG])).toBe('');
    expect(await call('pkg.latest_version', [PKG], { refresh: false })).toBe('1.0');

    expect(await call('pkg.install', [PKG])).toEqual({ [PKG]: { old: '', new: '1.0' } });
    expect(await call('pkg.version', [PKG])).toBe('1.0');
    expect(await call('pkg.version', [PKG, 'no-such-package-brine'])).toEqual({ [PKG]: '1.0', 'no-such-package-brine': '' });
    expect(await call('pkg.list_pkgs')).toMatchObject({ [PKG]: '1.0', dpkg: expect.any(String) });
    expect(await call('pkg.latest_version', [PKG], { refresh: false })).toBe('');
    expect(await call('pkg.install', [PKG])).toEqual({});

    publish(['1.0', '2.0']);
    await call('pkg.refresh_db');
    expect(await call('pkg.latest_version', [PKG], { refresh: false })).toBe('2.0');
    expect(await call('pkg.list_upgrades', [], { refresh: false })).toEqual({ [PKG]: '2.0' });

    expect(await call('pkg.hold', [PKG])).toEqual({
      [PKG]: { name: PKG, changes: { old: 'install', new: 'hold' }, result: true, comment: `Package ${PKG} is now being held.` },
    });
    expect(((await call('pkg.hold', [PKG])) as Record<string, { comment: string }>)[PKG].comment).toBe(
      `Package ${PKG} is already set to be held.`,
    );
    expect(await call('pkg.get_selections', [PKG])).toEqual({ hold: [PKG] });
    expect(await call('pkg.upgrade', [], { refresh: false })).toEqual({});
    expect(await call('pkg.unhold', [PKG])).toEqual({
      [PKG]: { name: PKG, changes: { old: 'hold', new: 'install' }, result: true, comment: `Package ${PKG} is no longer being held.` },
    });
    expect(await call('pkg.upgrade', [], { refresh: false })).toEqual({ [PKG]: { old: '1.0', new: '2.0' } });

    expect(await call('pkg.install', [PKG], { version: '1.0' })).toEqual({ [PKG]: { old: '2.0', new: '1.0' } });
    expect(await call('pkg.remove', [PKG])).toEqual({ [PKG]: { old: '1.0', new: '' } });
    expect(await call('pkg.remove', [PKG])).toEqual({});
    expect(await call('pkg.install', [], { sources: [{ [PKG]: debs['2.0'] }] })).toEqual({ [PKG]: { old: '', new: '2.0' } });
    expect(await call('pkg.purge', [PKG])).toEqual({ removed: {}, installed: { [PKG]: { old: '2.0', new: '' } } });
    expect(await call('pkg.version', [PKG])).toBe('');

    expect(await call('pkg.version_cmp', ['1.0', '1.0.1'])).toBe(-1);
    expect(await call('pkg.version_cmp', ['2:1.0', '1:9.0'])).toBe(1);
    expect(await call('pkg.version_cmp', ['2:1.0', '1:1.0'], { ignore_epoch: true })).toBe(0);
  }, 240_000);

  /** One state through state.single: its result without the runner's timing keys. */
  const state = async (fun: string, name: string, kwargs: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const res = await h.call('state.single', [fun, name], kwargs);
    const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
    const { name: n, changes, result, comment } = ret;
    return { name: n, changes, result, comment };
  };

  it('the pkg states: installed (test mode, install, already), latest, held, unheld, downgrade, removed, purged', async () => {
    publish(['1.0']);
    await call('pkg.refresh_db');
    expect(await state('pkg.installed', PKG, { test: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { new: '1.0', old: '' } },
      result: null,
      comment: `The following packages would be installed/updated: ${PKG}`,
    });
    expect(await call('pkg.version', [PKG])).toBe('');
    expect(await state('pkg.installed', PKG)).toEqual({
      name: PKG,
      changes: { [PKG]: { old: '', new: '1.0' } },
      result: true,
      comment: `The following packages were installed/updated: ${PKG}`,
    });
    expect(await state('pkg.installed', PKG)).toEqual({
      name: PKG,
      changes: {},
      result: true,
      comment: 'All specified packages are already installed',
    });
    // hold=True/False on an installed package: Salt appends each hold's comment to "already installed".
    expect(await state('pkg.installed', PKG, { hold: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { old: 'install', new: 'hold' } },
      result: true,
      comment: `All specified packages are already installed.\nPackage ${PKG} is now being held.`,
    });
    expect(await call('pkg.get_selections', [PKG])).toEqual({ hold: [PKG] });
    expect(await state('pkg.installed', PKG, { hold: false })).toMatchObject({
      result: true,
      comment: `All specified packages are already installed.\nPackage ${PKG} is no longer being held.`,
    });
    expect(await state('pkg.installed', PKG, { reinstall: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { old: '1.0', new: '1.0' } },
      result: true,
      comment: `Package ${PKG} was reinstalled.`,
    });
    expect(await state('pkg.installed', 'several', { pkgs: [{ [PKG]: '>=1.0' }] })).toMatchObject({
      result: true,
      comment: 'All specified packages are already installed and are at the desired version',
    });

    publish(['1.0', '2.0']);
    expect(await state('pkg.latest', PKG, { test: true, refresh: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { new: '2.0', old: '1.0' } },
      result: null,
      comment: `The following packages would be installed/upgraded: ${PKG}`,
    });
    expect(await state('pkg.held', PKG)).toEqual({
      name: PKG,
      changes: {
        [PKG]: { name: PKG, changes: { old: 'install', new: 'hold' }, result: true, comment: `Package ${PKG} is now being held.` },
      },
      result: true,
      comment: `Package ${PKG} is now being held`,
    });
    expect(await state('pkg.held', PKG)).toMatchObject({ changes: {}, result: true, comment: 'No changes made' });
    // Salt's held/unheld leave result True in test mode; only the comment says what would happen.
    expect(await state('pkg.unheld', PKG, { test: true })).toMatchObject({
      changes: {},
      result: true,
      comment: `The following package would be unheld: ${PKG}`,
    });
    expect(await state('pkg.unheld', PKG)).toMatchObject({ result: true, comment: `Package ${PKG} is no longer being held.` });
    expect(await state('pkg.latest', PKG)).toEqual({
      name: PKG,
      changes: { [PKG]: { old: '1.0', new: '2.0' } },
      result: true,
      comment: `The following packages were successfully installed/upgraded: ${PKG}`,
    });
    expect(await state('pkg.latest', PKG)).toMatchObject({ result: true, comment: `Package ${PKG} is already up-to-date` });
    expect(await state('pkg.installed', PKG, { version: '1.0' })).toEqual({
      name: PKG,
      changes: { [PKG]: { old: '2.0', new: '1.0' } },
      result: true,
      comment: `The following packages were installed/updated: ${PKG}=1.0`,
    });

    expect(await state('pkg.removed', PKG, { test: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { new: 'removed', old: '' } },
      result: null,
      comment: `The following packages will be removed: ${PKG}.`,
    });
    expect(await state('pkg.removed', PKG)).toEqual({
      name: PKG,
      changes: { [PKG]: { old: '1.0', new: '' } },
      result: true,
      comment: 'All targeted packages were removed.',
    });
    expect(await state('pkg.removed', PKG)).toMatchObject({ result: true, comment: 'All specified packages are already absent' });
    expect(await state('pkg.purged', PKG)).toMatchObject({
      result: true,
      comment: 'None of the targeted packages are installed or partially installed',
    });
    // Installed and held in one state: Salt appends the hold to the package's changes.
    expect(await state('pkg.installed', PKG, { hold: true })).toEqual({
      name: PKG,
      changes: { [PKG]: { old: 'install', new: '2.0\nhold' } },
      result: true,
      comment: `The following packages were installed/updated: ${PKG}\nPackage ${PKG} is now being held.`,
    });
    expect(await call('pkg.get_selections', [PKG])).toEqual({ hold: [PKG] });
  }, 240_000);

  it('a package apt does not know is an error naming it', async () => {
    const res = await h.call('pkg.install', ['no-such-package-brine']);
    expect(res.retcode).toBe(1);
    expect(res.return).toMatch(/^ERROR: Problem encountered installing package\(s\): .*no-such-package-brine/s);
  }, 120_000);
});
