/**
 * `lowpkg` on Debian (Salt's dpkg_lowpkg) on the real dpkg, each answer checked against what the
 * reference Salt 3007.10 answers on the same machine (`salt-call --local`). The machine's own
 * packages are only read; a package built here goes into a throwaway dpkg database
 * (`dpkg --root`, read through DPKG_ADMINDIR, which dpkg, dpkg-query and Salt's commands all
 * honour), so nothing of the machine's own package state changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import type { MasterFiles } from '../../../src/plugins/services/extension-sync';
import { debianLicenses, parseDebInfo, parseDpkgInfo, parseDselectAvailable } from '../../../plugins/pkg/apt-parse';
import { describeWithSalt, runSalt } from '../../support/salt-ref';

const PKG = 'brine-lowpkg-test';
const GRAINS = { os_family: 'Debian', os: 'Debian', cpuarch: 'x86_64', osarch: 'amd64', kernel: 'Linux' };

/** A .deb of the test package at `version`, built in `dir`: two files and a copyright. */
function buildDeb(dir: string, version: string): string {
  const src = join(dir, `src-${version}`);
  mkdirSync(join(src, 'DEBIAN'), { recursive: true });
  mkdirSync(join(src, 'usr/share/doc', PKG), { recursive: true });
  mkdirSync(join(src, 'usr/share', PKG), { recursive: true });
  writeFileSync(
    join(src, 'DEBIAN', 'control'),
    [
      `Package: ${PKG}`,
      `Version: ${version}`,
      'Architecture: all',
      'Maintainer: brine tests <tests@example.invalid>',
      'Homepage: https://example.invalid/brine',
      'Section: misc',
      'Description: brine lowpkg test package',
      ' Two files and a copyright.',
      ' .',
      ' A second paragraph.',
      '',
    ].join('\n'),
  );
  writeFileSync(join(src, 'usr/share/doc', PKG, 'copyright'), 'Files: *\nLicense: MIT\n');
  writeFileSync(join(src, 'usr/share', PKG, 'hello'), 'hello\n');
  const file = join(dir, `${PKG}_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', src, file], { stdio: 'ignore' });
  return file;
}

describe("dpkg's output as Salt's lowpkg reads it", () => {
  it('dpkg -I: the last word of the Package, Version and Architecture lines', () => {
    const out = [
      ' new Debian package, version 2.0.',
      ' size 740 bytes: control archive=352 bytes.',
      ' Package: brine-lowpkg-test',
      ' Version: 1:1.2-3',
      ' Architecture: i386',
      ' Description: a test',
    ].join('\n');
    expect(parseDebInfo(out)).toEqual({ name: 'brine-lowpkg-test', version: '1:1.2-3', arch: 'i386' });
    expect(parseDebInfo(' Package: x\n')).toEqual({ name: 'x' });
  });

  it("lowpkg.info's dpkg-query format: empty fields left out, the description whole, packages split at the separator", () => {
    const out =
      'package:a\nrevision:\nversion:1.0\nstatus:ii \ndescription:one\n two\n .\n three\n\n*/~^\\*\npackage:b\nversion:2\ndescription:\n\n*/~^\\*\n';
    expect(parseDpkgInfo(out)).toEqual([
      { package: 'a', version: '1.0', status: 'ii', description: 'one\n two\n .\n three\n' },
      { package: 'b', version: '2', description: '\n' },
    ]);
  });

  it("copyright License: lines and dselect's available file", () => {
    expect(debianLicenses('Files: *\nLicense: MIT\n\nFiles: x\nLicense: GPL-2+\nLicense: MIT\n')).toBe('GPL-2+, MIT');
    expect(debianLicenses('no licence here\n')).toBe('');
    expect(parseDselectAvailable('Package: a\nVersion: 1\nDepends: b\n\nPackage: b\nSection: x\nEmpty: \n')).toEqual({
      a: { package: 'a', version: '1', depends: 'b' },
      b: { package: 'b', section: 'x' },
    });
  });
});

describe('pkg.installed of a package marked for purge puts its selection back (lowpkg.unpurge)', () => {
  it("changes.purge_desired holds what unpurge changed, as Salt's state reports it", async () => {
    // dpkg as a fake shell: the package is installed but marked for purge until --set-selections.
    let selection = 'purge';
    const ran: string[] = [];
    const shell = fakeShell((command, options) => {
      const cmd = Array.isArray(command) ? command.join(' ') : command;
      ran.push(options.stdin ? `${cmd} <<< ${options.stdin.trim()}` : cmd);
      if (cmd.startsWith('dpkg-query --showformat')) return { stdout: `${selection} ok installed ${PKG} 1.0 all\n` };
      if (cmd === 'dpkg --set-selections' && options.stdin === `${PKG} install\n`) selection = 'install';
      return {};
    });
    const h = await createHarness({ shell, grains: GRAINS, pillar: {} });
    const res = await h.call('state.single', ['pkg.installed', PKG], {});
    const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
    expect({ changes: ret.changes, result: ret.result, comment: ret.comment }).toEqual({
      changes: { purge_desired: { [PKG]: { old: '1.0', new: '' } } },
      result: true,
      // Salt's apt list_pkgs counts a package marked for purge as installed: nothing to install.
      comment: `The following packages were already installed: ${PKG}`,
    });
    expect(ran).toContain(`dpkg --set-selections <<< ${PKG} install`);
    expect(ran.filter((c) => c.startsWith('apt-get'))).toEqual([]);
  });
});

describe('salt:// package files: lowpkg.bin_pkg_info and pkg.install fetch them from the master first', () => {
  let dir: string;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('caches the file, reads it with the real dpkg -I, and installs the cached copy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-dpkg-src-'));
    const deb = buildDeb(dir, '2.0-1');
    const cachedir = join(dir, 'cache');
    const files: MasterFiles = {
      async list() {
        return ['pkgs/test.deb'];
      },
      async fetch(_saltenv, path, dest) {
        if (path !== 'pkgs/test.deb') return false;
        mkdirSync(dirname(dest), { recursive: true });
        copyFileSync(deb, dest);
        return true;
      },
    };
    const ran: string[] = [];
    const real = new NodeShell();
    // dpkg -I and dpkg-query run for real; apt-get is recorded, not run.
    const shell = fakeShell((command, options) => {
      const argv = command as string[];
      ran.push(argv.join(' '));
      return argv[0] === 'apt-get' ? {} : real.run(argv, options);
    });
    const h = await createHarness({ shell, grains: GRAINS, pillar: {}, files, config: { cachedir } });
    const cached = join(cachedir, 'files', 'base', 'pkgs', 'test.deb');
    expect((await h.call('lowpkg.bin_pkg_info', ['salt://pkgs/test.deb'])).return).toEqual({ name: PKG, version: '2.0-1', arch: 'all' });
    expect(ran).toContain(`dpkg -I ${cached}`);
    const res = await h.call('pkg.install', [], { sources: [{ [PKG]: 'salt://pkgs/test.deb' }] });
    expect(res.retcode).toBe(0);
    expect(ran.find((c) => c.startsWith('apt-get') && c.includes(' install '))).toMatch(new RegExp(`install ${cached}$`));
    const missing = await h.call('lowpkg.bin_pkg_info', ['salt://pkgs/none.deb']);
    expect([missing.retcode, String(missing.return)]).toEqual([1, "ERROR: Unable to retrieve salt://pkgs/none.deb from saltenv 'base'"]);
    const relative = await h.call('pkg.install', [], { sources: [{ [PKG]: 'pkgs/test.deb' }] });
    expect(String(relative.return)).toContain(`Path pkgs/test.deb for package ${PKG} is either not absolute or an invalid protocol`);
  });
});

// dpkg --root installs files owned by root.
const AS_ROOT = process.getuid?.() === 0;

describeWithSalt("lowpkg (dpkg) answers as Salt 3007's", () => {
  let dir: string;
  let deb: string;
  let newerDeb: string;
  let admindir: string;
  let saltConfig: string;
  let h: Harness;
  const savedAdmindir = process.env.DPKG_ADMINDIR;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-dpkg-'));
    deb = buildDeb(dir, '1.2-3');
    newerDeb = buildDeb(dir, '1.3-1');

    // Salt's minion for salt-call --local, everything under the test's folder.
    saltConfig = join(dir, 'salt');
    mkdirSync(saltConfig);
    writeFileSync(join(saltConfig, 'minion'), `root_dir: ${saltConfig}\nuser: root\nfile_client: local\nid: ref\n`);

    h = await createHarness({ shell: new NodeShell(), grains: GRAINS, pillar: {} });
  });

  afterAll(() => {
    if (savedAdmindir === undefined) delete process.env.DPKG_ADMINDIR;
    else process.env.DPKG_ADMINDIR = savedAdmindir;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ours = async (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> => {
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };
  /** Salt's answer to `salt-call --local fun words...` (words as typed on its command line). */
  const salts = async (fun: string, ...words: string[]): Promise<unknown> => {
    const res = await runSalt('salt-call', saltConfig, ['--local', '--out', 'json', fun, ...words]);
    if (res.code !== 0) throw new Error(`salt-call ${fun}: ${res.stdout}${res.stderr}`);
    return (JSON.parse(res.stdout) as { local: unknown }).local;
  };

  it("the machine's own packages: list_pkgs, file_list, file_dict, info (license, install date, description)", async () => {
    delete process.env.DPKG_ADMINDIR;
    expect(await ours('lowpkg.list_pkgs', ['bash', 'coreutils'])).toEqual(await salts('lowpkg.list_pkgs', 'bash', 'coreutils'));
    expect(await ours('lowpkg.file_list', ['hostname'])).toEqual(await salts('lowpkg.file_list', 'hostname'));
    expect(await ours('lowpkg.file_dict', ['hostname', 'bash'])).toEqual(await salts('lowpkg.file_dict', 'hostname', 'bash'));
    const info = (await ours('lowpkg.info', ['bash', 'hostname'])) as Record<string, Record<string, string>>;
    expect(info).toEqual(await salts('lowpkg.info', 'bash', 'hostname'));
    // What Salt's answer holds, so the comparison is not of two empty answers.
    expect(Object.keys(info.bash)).toEqual(expect.arrayContaining(['install_date', 'license', 'description', 'version', 'status']));
    // The key order of Salt's dict (JSON output keeps it): install_date right after package.
    expect(Object.keys(info.hostname).slice(0, 2)).toEqual(['package', 'install_date']);
    // failhard=False: an empty answer, and the failed dpkg-query's exit code as the job's (Salt's
    // cmd.run_all sets it).
    const theirs = await runSalt('salt-call', saltConfig, [
      '--local',
      '--out',
      'json',
      'lowpkg.info',
      'brine-no-such-package',
      'failhard=False',
    ]);
    const mine = await h.call('lowpkg.info', ['brine-no-such-package'], { failhard: false });
    expect([mine.retcode, mine.return]).toEqual([theirs.code, (JSON.parse(theirs.stdout) as { local: unknown }).local]);
    expect(mine.retcode).toBe(1);
  });

  it('bin_pkg_info of a .deb file', async () => {
    expect(await ours('lowpkg.bin_pkg_info', [deb])).toEqual({ name: PKG, version: '1.2-3', arch: 'all' });
    expect(await ours('lowpkg.bin_pkg_info', [deb])).toEqual(await salts('lowpkg.bin_pkg_info', deb));
  });

  describe.skipIf(!AS_ROOT)('a package in a throwaway dpkg database', () => {
    beforeAll(() => {
      const root = join(dir, 'root');
      admindir = join(root, 'var/lib/dpkg');
      mkdirSync(join(admindir, 'info'), { recursive: true });
      mkdirSync(join(admindir, 'updates'));
      writeFileSync(join(admindir, 'status'), '');
      writeFileSync(join(admindir, 'available'), '');
      execFileSync('dpkg', [`--root=${root}`, '-i', deb], { stdio: 'ignore' });
    });

    const markPurge = (): void => {
      execFileSync('dpkg', ['--set-selections'], { input: `${PKG} purge\n`, env: { ...process.env, DPKG_ADMINDIR: admindir } });
    };

    it('list_pkgs, file_list, file_dict and info of every package, the one installed there', async () => {
      process.env.DPKG_ADMINDIR = admindir;
      expect(await ours('lowpkg.list_pkgs')).toEqual({ [PKG]: '1.2-3' });
      expect(await ours('lowpkg.list_pkgs')).toEqual(await salts('lowpkg.list_pkgs'));
      const files = [
        '/.',
        '/usr',
        '/usr/share',
        `/usr/share/${PKG}`,
        `/usr/share/${PKG}/hello`,
        '/usr/share/doc',
        `/usr/share/doc/${PKG}`,
        `/usr/share/doc/${PKG}/copyright`,
      ];
      expect(await ours('lowpkg.file_list')).toEqual({ errors: [], files: [...files].sort() });
      expect(await ours('lowpkg.file_list')).toEqual(await salts('lowpkg.file_list'));
      expect(await ours('lowpkg.file_dict', [PKG])).toEqual({ errors: [], packages: { [PKG]: files } });
      expect(await ours('lowpkg.file_dict', [PKG])).toEqual(await salts('lowpkg.file_dict', PKG));
      expect(await ours('lowpkg.info', [PKG])).toEqual({
        [PKG]: {
          package: PKG,
          architecture: 'all',
          maintainer: 'brine tests <tests@example.invalid>',
          source: PKG,
          version: '1.2-3',
          section: 'misc',
          homepage: 'https://example.invalid/brine',
          status: 'ii',
          description: 'brine lowpkg test package\n Two files and a copyright.\n .\n A second paragraph.\n',
        },
      });
      expect(await ours('lowpkg.info', [PKG])).toEqual(await salts('lowpkg.info', PKG));
    });

    it("pkg.installed with sources reads each package file's version (lowpkg.bin_pkg_info)", async () => {
      process.env.DPKG_ADMINDIR = admindir;
      const state = async (file: string): Promise<Record<string, unknown>> => {
        const res = await h.call('state.single', ['pkg.installed', 'from-files'], { sources: [{ [PKG]: file }], test: true });
        const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
        return { changes: ret.changes, result: ret.result, comment: ret.comment };
      };
      expect(await state(deb)).toEqual({ changes: {}, result: true, comment: 'All specified packages are already installed' });
      expect(await state(newerDeb)).toEqual({
        changes: { [PKG]: { new: 'installed', old: '' } },
        result: null,
        comment: `The following packages would be installed/updated: ${PKG}`,
      });
      expect(await state(join(dir, 'none.deb'))).toMatchObject({
        result: false,
        comment: `${join(dir, 'none.deb')} does not exist on minion`,
      });
    });

    it("unpurge: a package marked for purge goes back to 'install', as Salt's does", async () => {
      process.env.DPKG_ADMINDIR = admindir;
      markPurge();
      expect(await ours('pkg.list_pkgs', [], { purge_desired: true })).toEqual({ [PKG]: '1.2-3' });
      const theirs = await salts('lowpkg.unpurge', PKG);
      expect(theirs).toEqual({ [PKG]: { old: '1.2-3', new: '' } });
      markPurge();
      expect(await ours('lowpkg.unpurge', [PKG])).toEqual(theirs);
      expect(await ours('pkg.list_pkgs', [], { purge_desired: true })).toEqual({});
      expect(await ours('lowpkg.unpurge')).toEqual({});
    });

    it('pkg.installed of a package marked for purge: test mode says its selection would change', async () => {
      process.env.DPKG_ADMINDIR = admindir;
      markPurge();
      const res = await h.call('state.single', ['pkg.installed', PKG], { test: true });
      const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
      expect(ret.result).toBe(null);
      expect(String(ret.comment)).toContain(
        `The following packages would have their selection status changed from 'purge' to 'install': ${PKG}`,
      );
      expect((ret.changes as Record<string, unknown>)[PKG]).toEqual({ new: 'installed', old: '' });
    });
  });

  it('errors a user can cause name the problem', async () => {
    delete process.env.DPKG_ADMINDIR;
    const failed = async (fun: string, args: unknown[], kwargs: Record<string, unknown> = {}): Promise<string> => {
      const res = await h.call(fun, args, kwargs);
      expect(res.retcode).toBe(1);
      return String(res.return);
    };
    expect(await failed('lowpkg.list_pkgs', ['brine-no-such-package'])).toContain(
      'Error:  dpkg-query: no packages found matching brine-no-such-package',
    );
    expect(await failed('lowpkg.info', ['brine-no-such-package'])).toContain(
      'Error getting packages information: dpkg-query: no packages found matching brine-no-such-package',
    );
    expect(await failed('lowpkg.info', ['bash'], { bogus: 1 })).toContain('The following keyword arguments are not valid: bogus=1');
    expect(await failed('lowpkg.bin_pkg_info', ['relative.deb'])).toContain('relative.deb does not exist on minion');
    expect(await failed('lowpkg.bin_pkg_info', [join(dir, 'none.deb')])).toContain(`${join(dir, 'none.deb')} does not exist on minion`);
    const notDeb = join(dir, 'salt', 'minion');
    expect(await failed('lowpkg.bin_pkg_info', [notDeb])).toContain(`Unable to get info for ${notDeb}`);
  });
});
