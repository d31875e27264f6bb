/**
 * `pkg.verify` of the RHEL-family backend and the `pkg_verify` option of `pkg.installed`, on the
 * real rpm (Debian packages it; .ci/run installs it): a package built here with rpmbuild and
 * installed into a throwaway `--root`, files altered on disk, and `rpm -V` reading them.
 *
 * What is not real: dnf, which would need a repository. The test's shell sends every rpm command to
 * the throwaway root (brine's list_pkgs reads the host's rpm database, as Salt's does) and runs
 * `dnf -y reinstall` as rpm's own `--reinstall` of the built package, which is what dnf hands rpm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { parseRpmVerify } from '../../../plugins/pkg/rpm-parse';
import { AS_ROOT, buildRpm, haveRpmbuild, initRoot, rpmIn } from '../../support/rpm-package';

const PKG = 'brine-hello';
const CONF = '/etc/brine-hello.conf';
const BIN = '/usr/bin/brine-hello';
const README = '/usr/share/doc/brine-hello/README';

const haveRpm = haveRpmbuild();

describe("rpm -V's output as Salt's lowpkg.verify reads it", () => {
  it('file lines by column; dependency complaints left out; a package not installed set apart', () => {
    // What rpm 4.18 printed for a package with an altered config file, a file with another mode, a
    // deleted doc file and an unmet dependency, followed by a name that is not installed.
    const out = [
      'Unsatisfied dependencies for brine-hello-1.0-1.noarch:',
      '\t/bin/sh is needed by (installed) brine-hello-1.0-1.noarch',
      'S.5....T.  c /etc/brine-hello.conf',
      '.M.......    /usr/bin/brine-hello',
      '....L....    /usr/lib/with space',
      'missing   d /usr/share/doc/brine-hello/README',
      'package nosuch is not installed',
    ].join('\n');
    expect(parseRpmVerify(out, [])).toEqual({
      files: {
        '/etc/brine-hello.conf': { mismatch: ['size', 'md5sum', 'mtime'], type: 'config' },
        '/usr/bin/brine-hello': { mismatch: ['mode'] },
        '/usr/lib/with space': { mismatch: ['readlink path'] },
        '/usr/share/doc/brine-hello/README': { missing: true, type: 'doc' },
      },
      notInstalled: ['package nosuch is not installed'],
    });
    expect(Object.keys(parseRpmVerify(out, ['config', 'doc']).files)).toEqual(['/usr/bin/brine-hello', '/usr/lib/with space']);
  });
});

describe.skipIf(!haveRpm || !AS_ROOT)('pkg.verify and pkg_verify on the real rpm', () => {
  let dir: string;
  let root: string;
  let rpmFile: string;
  let fakeBin: string;
  let savedPath: string | undefined;
  let h: Harness;
  const shell = new NodeShell();

  const rpm = (...args: string[]): string => rpmIn(root, ...args);
  /** A fresh install, every file as rpm wrote it (a reinstall would keep an altered config file). */
  const freshInstall = (): void => {
    rpm('-e', '--nodeps', '--noscripts', PKG);
    rpm('-i', '--nodeps', '--noscripts', rpmFile);
  };
  /** Add a line to the config file and date it 2001, so rpm sees size, digest and mtime differ. */
  const alterConf = (): void => {
    appendFileSync(join(root, CONF), 'extra=1\n');
    utimesSync(join(root, CONF), 978307200, 978307200);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-rpm-'));
    root = join(dir, 'root');
    rpmFile = buildRpm(dir, {
      name: PKG,
      version: '1.0',
      summary: "A package for brine's pkg.verify tests",
      description: 'One file of each kind rpm -V checks.',
      files: [
        { path: CONF, content: 'greeting=hello\n', attr: '%config' },
        { path: BIN, content: '#!/bin/sh\necho hello\n', mode: 0o755 },
        { path: README, content: 'read me\n', attr: '%doc' },
      ],
    });
    initRoot(root, rpmFile);

    // The RHEL-family backend is chosen by the grains and a dnf on PATH (never run: see the shell).
    fakeBin = join(dir, 'bin');
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, 'dnf'), '#!/bin/sh\nexit 99\n');
    chmodSync(join(fakeBin, 'dnf'), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${fakeBin}:${savedPath ?? '/usr/bin:/bin'}`;

    const routed = fakeShell(async (command, options) => {
      const argv = Array.isArray(command) ? command : ['sh', '-c', command];
      if (argv[0] === 'rpm') return shell.run(argv.includes('--root') ? argv : ['rpm', '--root', root, ...argv.slice(1)], options);
      if (argv.join(' ') === `dnf -y reinstall ${PKG}`)
        return shell.run(['rpm', '--root', root, '-U', '--reinstall', '--nodeps', '--noscripts', rpmFile], options);
      return { retcode: 1, stderr: `not run in this test: ${argv.join(' ')}` };
    });
    h = await createHarness({
      shell: routed,
      grains: { os_family: 'RedHat', os: 'Rocky', osarch: 'x86_64', osmajorrelease: 9, kernel: 'Linux' },
      pillar: {},
    });
  });

  afterAll(() => {
    process.env.PATH = savedPath;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> => {
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };
  const state = async (kwargs: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const res = await h.call('state.single', ['pkg.installed', PKG], { root, ...kwargs });
    const [ret] = Object.values(res.return as Record<string, Record<string, unknown>>);
    return { changes: ret.changes, result: ret.result, comment: ret.comment };
  };

  it('pkg.verify: nothing for a package as installed; each altered file with what rpm found', async () => {
    freshInstall();
    expect(await call('pkg.verify', [PKG], { root })).toEqual({});
    alterConf();
    chmodSync(join(root, BIN), 0o600);
    unlinkSync(join(root, README));
    const altered = {
      [CONF]: { mismatch: ['size', 'md5sum', 'mtime'], type: 'config' },
      [BIN]: { mismatch: ['mode'] },
      [README]: { missing: true, type: 'doc' },
    };
    expect(await call('pkg.verify', [PKG], { root })).toEqual(altered);
    // No names: every package (rpm -Va), here the one.
    expect(await call('pkg.verify', [], { root })).toEqual(altered);
  });

  it('pkg.verify: ignore_types and verify_options, as lists or comma-separated strings', async () => {
    freshInstall();
    alterConf();
    chmodSync(join(root, BIN), 0o600);
    unlinkSync(join(root, README));
    expect(await call('pkg.verify', [PKG], { root, ignore_types: ['config', 'doc'] })).toEqual({ [BIN]: { mismatch: ['mode'] } });
    expect(await call('pkg.verify', [PKG], { root, ignore_types: 'config, doc', verify_options: 'nomode' })).toEqual({});
    expect(Object.keys((await call('pkg.verify', [PKG], { root, verify_options: ['nomode', 'nosize'] })) as object).sort()).toEqual([
      CONF,
      README,
    ]);
  });

  it('pkg.verify refuses a package that is not installed and a malformed option, saying which', async () => {
    const missing = await h.call('pkg.verify', ['brine-nosuch'], { root });
    expect(missing.retcode).toBe(1);
    expect(String(missing.return)).toContain('Failed to verify package(s): package brine-nosuch is not installed');
    const bad = await h.call('pkg.verify', [PKG], { root, ignore_types: 5 });
    expect(bad.retcode).toBe(1);
    expect(String(bad.return)).toContain('ignore_types must be a list or a comma-separated string');
  });

  it('pkg.installed pkg_verify: test mode names the altered files; the reinstall remediates them', async () => {
    freshInstall();
    expect(await state({ pkg_verify: true })).toEqual({
      changes: {},
      result: true,
      comment: 'All specified packages are already installed',
    });
    chmodSync(join(root, BIN), 0o600);
    unlinkSync(join(root, README));
    const nested = [
      `${BIN}:`,
      '    ----------',
      '    mismatch:',
      '        - mode',
      `${README}:`,
      '    ----------',
      '    missing:',
      '        True',
      '    type:',
      '        doc',
    ].join('\n');
    expect(await state({ pkg_verify: true, test: true })).toEqual({
      changes: { [PKG]: {} },
      result: null,
      comment: `Package '${PKG}' would be reinstalled because the following files have been altered:\n${nested}`,
    });
    expect(await state({ pkg_verify: true })).toEqual({
      changes: { [PKG]: { old: '1.0-1', new: '1.0-1' } },
      result: true,
      comment: `Package ${PKG} was reinstalled. The following files were remediated:\n${nested}`,
    });
    expect(await call('pkg.verify', [PKG], { root })).toEqual({});
  });

  it('pkg.installed pkg_verify: ignore_types from the list form; a kept config file is not remediated', async () => {
    freshInstall();
    alterConf();
    expect(await state({ pkg_verify: [{ ignore_types: ['config'] }] })).toMatchObject({
      result: true,
      comment: 'All specified packages are already installed',
    });
    // rpm keeps a changed config file when the package's own copy did not change: the
    // reinstall leaves it, and the state says so.
    expect(await state({ pkg_verify: true })).toEqual({
      changes: { [PKG]: { old: '1.0-1', new: '1.0-1' } },
      result: false,
      comment: [
        `Reinstall was not successful for package ${PKG}. The following files could not be remediated:`,
        `${CONF}:`,
        '    ----------',
        '    mismatch:',
        '        - size',
        '        - md5sum',
        '        - mtime',
        '    type:',
        '        config',
      ].join('\n'),
    });
  });
});
