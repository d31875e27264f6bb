/**
 * `lowpkg` of the RHEL family (Salt's rpm_lowpkg) on the real rpm (Debian packages it; .ci/run
 * installs it): packages built here with rpmbuild, installed into a throwaway `--root`, and every
 * function called through a harness whose shell runs the real commands. First the pure readers of
 * rpm's output, with the odd cases real packages rarely show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../plugins';
import { RpmLowpkgModule } from '../../../plugins/pkg/rpm-lowpkg.module';
import { newestRpmInfo, parseRpmInfo, RPM_INFO_SEPARATOR, rpmInfoQueryformat } from '../../../plugins/pkg/rpm-info';
import { parsePkginfo, parseRpmFileDict, parseRpmFileList, parseRpmModified, parseRpmNameVersion } from '../../../plugins/pkg/rpm-parse';
import { NodeShell } from '../../../src/plugins/services/shell';
import { AS_ROOT, buildRpm, haveCpio, haveRpmbuild, initRoot, RPM_BUILD_HOST, RPM_BUILD_TIME, rpmIn } from '../../support/rpm-package';

const haveRpm = haveRpmbuild();
const cpio = haveCpio();
const GRAINS = { os_family: 'RedHat', os: 'Rocky', osarch: 'x86_64', osmajorrelease: 9, kernel: 'Linux' };

describe("rpm's output as Salt's rpm_lowpkg reads it", () => {
  it('parsePkginfo: epoch, release, a foreign architecture, the install time', () => {
    expect(parsePkginfo('glibc_|-(none)_|-2.34_|-100.el9_|-i686_|-none_|-1700000000', 'x86_64')).toEqual({
      name: 'glibc.i686',
      version: '2.34-100.el9',
      arch: 'i686',
      repoid: 'none',
      install_date: '2023-11-14T22:13:20Z',
      install_date_time_t: 1700000000,
    });
    expect(parsePkginfo('bash_|-1_|-5.1_|-_|-noarch_|-none_|-(none)', 'x86_64')).toEqual({
      name: 'bash',
      version: '1:5.1',
      arch: 'noarch',
      repoid: 'none',
      install_date: null,
      install_date_time_t: null,
    });
    expect(parsePkginfo('', 'x86_64')).toBeNull();
    expect(parsePkginfo('a_|-b', 'x86_64')).toBeNull();
  });

  it('parseRpmModified: by shape, not by column; missing is missing; only c is config', () => {
    const out = [
      'Unsatisfied dependencies for brine-hello-1.0-1.noarch:',
      '\t/bin/sh is needed by (installed) brine-hello-1.0-1.noarch',
      'S.5....T.  c /etc/brine-hello.conf',
      '.M.......    /usr/bin/with space',
      '..?......  d /usr/share/doc/x/README',
      'missing   c /etc/gone.conf',
      'missing     /usr/bin/gone',
      // rpm before 4.6: eight columns.
      '.....UG.    /usr/lib/old',
    ].join('\n');
    expect(parseRpmModified(out)).toEqual({
      '/etc/brine-hello.conf': ['size', 'checksum', 'time', 'config'],
      '/usr/bin/with space': ['mode'],
      '/usr/share/doc/x/README': ['checksum'],
      '/etc/gone.conf': ['missing', 'config'],
      '/usr/bin/gone': ['missing'],
      '/usr/lib/old': ['owner', 'group'],
    });
    expect(parseRpmModified('')).toEqual({});
  });

  it('name-version lines, file lists and file dicts: names not installed set apart', () => {
    const notInstalled = 'package nosuch is not installed';
    expect(parseRpmNameVersion(`bash 5.1.8\n${notInstalled}\nkernel 5.14.0\nkernel 5.15.0\n`)).toEqual({
      pkgs: { bash: '5.1.8', kernel: '5.15.0' },
      notInstalled: [notInstalled],
    });
    expect(parseRpmFileList(`/etc/a\n(contains no files)\n${notInstalled}\n/usr/b\n`)).toEqual({
      errors: [notInstalled],
      files: ['/etc/a', '/usr/b'],
    });
    expect(parseRpmFileDict(`a\n\t/etc/a\n\t/usr/a b\nempty\n${notInstalled}\nkernel\n\t/boot/1\nkernel\n\t/boot/2\n`)).toEqual({
      errors: [notInstalled],
      packages: { a: ['/etc/a', '/usr/a b'], empty: [], kernel: ['/boot/1', '/boot/2'] },
    });
  });

  it("info's query: every attribute, or those named plus name and edition; none known is null", () => {
    const all = rpmInfoQueryformat(null, '%{LONGSIZE}')!;
    expect(all.startsWith('name: %{NAME}\\nrelocations: ')).toBe(true);
    expect(all).toContain('size: %{LONGSIZE}\\n');
    expect(all.endsWith(`edition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\\ndescription:\\n%{DESCRIPTION}\\n${RPM_INFO_SEPARATOR}`)).toBe(
      true,
    );
    expect(rpmInfoQueryformat(['version', 'size', 'bogus'], '%{SIZE}')).toBe(
      `version: %{VERSION}\\nsize: %{SIZE}\\nname: %{NAME}\\nedition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\\n${RPM_INFO_SEPARATOR}`,
    );
    expect(rpmInfoQueryformat(['description'], '%{SIZE}')).toBe(
      `name: %{NAME}\\nedition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\\ndescription:\\n%{DESCRIPTION}\\n${RPM_INFO_SEPARATOR}`,
    );
    expect(rpmInfoQueryformat(['bogus', 'build_date_iso'], '%{SIZE}')).toBeNull();
  });

  it("info's records: times converted, empty values dropped, a description with rules and colons kept whole", () => {
    const out = [
      'name: foo\nversion: 1.0\nvendor: \nbuild_date: 978307200\nbuild_date_time_t: 978307200',
      'install_date: (not installed)\ninstall_date_time_t: (not installed)\nedition: 1.0-1',
      `description:\nTitle: a line\n---\n  indented\n${RPM_INFO_SEPARATOR}package bar is not installed\n`,
    ].join('\n');
    expect(parseRpmInfo(out, true)).toEqual([
      {
        name: 'foo',
        version: '1.0',
        build_date: '2001-01-01T00:00:00Z',
        build_date_time_t: 978307200,
        edition: '1.0-1',
        description: 'Title: a line\n---\n  indented',
      },
    ]);
    expect(parseRpmInfo('name: foo\nedition: 1-1\n', false)).toEqual([{ name: 'foo', edition: '1-1' }]);
  });

  it("info's choice: rpm's order picks the newest, gpg-pubkey left out, all_versions keeps every edition", () => {
    const records = [
      { name: 'k', edition: '1.0~rc1-1', v: 'rc' },
      { name: 'k', edition: '1.0-1', v: 'final' },
      { name: 'gpg-pubkey', edition: '1-1', v: 'key' },
    ];
    // LooseVersion (Salt) would put 1.0~rc1 after 1.0.
    expect(newestRpmInfo(records, false, false)).toEqual({ k: { v: 'final' } });
    expect(newestRpmInfo(records, false, true)).toEqual({ k: { v: 'final', edition: '1.0-1' } });
    expect(newestRpmInfo(records, true, false)).toEqual({
      k: [
        { v: 'final', edition: '1.0-1' },
        { v: 'rc', edition: '1.0~rc1-1' },
      ],
    });
  });
});

describe("lowpkg availability (Salt's rpm_lowpkg __virtual__)", () => {
  let dir: string;
  let savedPath: string | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'brine-lowpkg-path-'));
    mkdirSync(join(dir, 'with'));
    mkdirSync(join(dir, 'without'));
    writeFileSync(join(dir, 'with', 'rpm'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'with', 'rpm'), 0o755);
    savedPath = process.env.PATH;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A harness loaded while PATH is `path`: the module looks for rpm on PATH when it loads. */
  const loadWithPath = async (
    grains: Record<string, unknown>,
    path: string,
    modules: readonly unknown[] = [RpmLowpkgModule],
  ): Promise<Harness> => {
    process.env.PATH = path;
    try {
      return await createHarness({ modules, grains, pillar: {} });
    } finally {
      process.env.PATH = savedPath;
    }
  };
  /** What lowpkg.version_cmp answers on a host with these grains and this PATH. */
  const answer = async (grains: Record<string, unknown>, path: string): Promise<unknown> =>
    (await (await loadWithPath(grains, path)).call('lowpkg.version_cmp', ['1', '2'])).return;

  it("has Salt's eleven functions", async () => {
    const h = await loadWithPath(GRAINS, join(dir, 'with'), [...BUILTIN_PLUGINS, RpmLowpkgModule]);
    expect((await h.call('sys.list_functions', ['lowpkg'])).return).toEqual([
      'lowpkg.bin_pkg_info',
      'lowpkg.checksum',
      'lowpkg.diff',
      'lowpkg.file_dict',
      'lowpkg.file_list',
      'lowpkg.info',
      'lowpkg.list_pkgs',
      'lowpkg.modified',
      'lowpkg.owner',
      'lowpkg.verify',
      'lowpkg.version_cmp',
    ]);
  });

  it('loads on the RHEL family, SUSE and the yum distributions, with rpm on PATH; says why not elsewhere', async () => {
    const withRpm = join(dir, 'with');
    expect(await answer(GRAINS, withRpm)).toBe(-1);
    expect(await answer({ os_family: 'Suse', os: 'SUSE' }, withRpm)).toBe(-1);
    expect(await answer({ os_family: 'Amazon', os: 'Amazon' }, withRpm)).toBe(-1);
    expect(await answer({ os_family: 'Debian', os: 'Debian' }, withRpm)).toBe(
      "'lowpkg' __virtual__ returned False: The rpm execution module failed to load: only available on redhat/suse type " +
        'systems or amazon, xcp, xenserver, virtuozzolinux, virtuozzo, issabel pbx or openeuler.',
    );
    expect(await answer({ os_family: 'RedHat' }, withRpm)).toBe(
      "'lowpkg' __virtual__ returned False: The rpm execution module failed to load: failed to detect os or os_family grains.",
    );
    expect(await answer(GRAINS, join(dir, 'without'))).toBe(
      "'lowpkg' __virtual__ returned False: The rpm execution module failed to load: rpm binary is not in the path.",
    );
  });
});

const ALPHA_CONF = '/etc/brine-alpha.conf';
const ALPHA_BLOB = '/usr/lib/brine-alpha/blob.bin';
const ALPHA_README = '/usr/share/doc/brine-alpha/README';
const SHARED_DIR = '/usr/share/brine';
const ALPHA_FILES = [ALPHA_CONF, ALPHA_BLOB, SHARED_DIR, ALPHA_README];
const NOT_INSTALLED = 'package brine-nosuch is not installed';

describe.skipIf(!haveRpm || !AS_ROOT)('lowpkg on the real rpm', () => {
  let dir: string;
  let root: string;
  let alpha: string;
  let beta15: string;
  let beta110: string;
  let gamma: string;
  let gammaConf: string;
  let gammaBin: string;
  let h: Harness;

  /** alpha as rpm installs it, every file untouched. */
  const freshAlpha = (): void => {
    rpmIn(root, '-e', '--nodeps', '--noscripts', 'brine-alpha');
    rpmIn(root, '-i', '--nodeps', '--noscripts', alpha);
  };
  /** The config file one line longer and dated 2001; the binary file another mode; the README gone. */
  const alterAlpha = (): void => {
    appendFileSync(join(root, ALPHA_CONF), 'extra=1\n');
    utimesSync(join(root, ALPHA_CONF), 978307200, 978307200);
    chmodSync(join(root, ALPHA_BLOB), 0o600);
    unlinkSync(join(root, ALPHA_README));
  };
  const call = async (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> => {
    const res = await h.call(fun, args, kwargs);
    if (res.retcode) throw new Error(`${fun}: ${JSON.stringify(res.return)}`);
    return res.return;
  };
  /** The answer of a call that fails: its text (retcode 1). */
  const failure = async (fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> => {
    const res = await h.call(fun, args, kwargs);
    expect(res.retcode).toBe(1);
    return res.return;
  };
  const installTime = (name: string, version: string): number =>
    Number(rpmIn(root, '-q', '--queryformat', '%{INSTALLTIME}', `${name}-${version}`));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-lowpkg-'));
    root = join(dir, 'root');
    alpha = buildRpm(dir, {
      name: 'brine-alpha',
      epoch: 2,
      version: '1.0',
      release: '3',
      summary: 'First package for lowpkg',
      description: 'First line.\n--- a rule ---\nLast line.',
      tags: ['Vendor: Brine', 'URL: https://example.org/alpha', 'Packager: Brine Tests <brine@example.org>', 'Group: Applications/System'],
      files: [
        { path: ALPHA_CONF, content: 'greeting=hello\n', attr: '%config' },
        { path: ALPHA_BLOB, content: Buffer.from([0x61, 0, 0x62, 0x0a]) },
        { path: ALPHA_README, content: 'read me\n', attr: '%doc' },
      ],
      dirs: [SHARED_DIR],
    });
    const beta = (version: string): string =>
      buildRpm(dir, {
        name: 'brine-beta',
        version,
        summary: 'Second package',
        license: 'GPL',
        files: [{ path: `${SHARED_DIR}/beta-${version}/file`, content: `beta ${version}\n` }],
        dirs: [SHARED_DIR],
      });
    beta15 = beta('1.5');
    beta110 = beta('1.10');
    // Never installed: its files sit in the temporary directory, for lowpkg.diff against files there.
    gammaConf = join(dir, 'host', 'gamma.conf');
    gammaBin = join(dir, 'host', 'gamma.bin');
    gamma = buildRpm(dir, {
      name: 'brine-gamma',
      version: '0.1',
      summary: 'Files to diff',
      files: [
        { path: gammaConf, content: 'one\ntwo\n' },
        { path: gammaBin, content: Buffer.from([1, 0, 2]) },
      ],
    });
    // Two versions of beta side by side, as rpm -i allows (kernels are installed so).
    initRoot(root, alpha, beta15, beta110);
    h = await createHarness({ modules: [...BUILTIN_PLUGINS, RpmLowpkgModule], shell: new NodeShell(), grains: GRAINS, pillar: {} });
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('bin_pkg_info: what an .rpm file is; a path that is not one, not there, or not local says so', async () => {
    expect(await call('lowpkg.bin_pkg_info', [alpha])).toEqual({
      name: 'brine-alpha',
      version: '2:1.0-3',
      arch: 'noarch',
      repoid: 'none',
      install_date: null,
      install_date_time_t: null,
    });
    expect(await call('lowpkg.bin_pkg_info', [beta110])).toMatchObject({ name: 'brine-beta', version: '1.10-1' });
    expect(await failure('lowpkg.bin_pkg_info', ['brine.rpm'])).toBe(
      "ERROR executing 'lowpkg.bin_pkg_info': brine.rpm does not exist on minion",
    );
    expect(await failure('lowpkg.bin_pkg_info', [join(dir, 'nosuch.rpm')])).toBe(
      `ERROR: ${join(dir, 'nosuch.rpm')} does not exist on minion`,
    );
    const text = join(dir, 'not-an.rpm');
    writeFileSync(text, `${alpha}\n`);
    expect(await failure('lowpkg.bin_pkg_info', [text])).toBe(`ERROR: Unable to read ${text} as an rpm package`);
    // salt:// goes through cp.cache_file, which needs a master (this harness has none).
    expect(await failure('lowpkg.bin_pkg_info', ['salt://pkgs/brine-alpha.rpm'])).toBe(
      'ERROR: Cannot fetch salt://pkgs/brine-alpha.rpm: this minion runs without a master connection (file_client local)',
    );
  });

  it('list_pkgs: {name: version}, all or those named; names not installed left out; a bad root refused', async () => {
    // Of beta's two versions, the last rpm lists wins (as in Salt).
    expect(await call('lowpkg.list_pkgs', [], { root })).toEqual({ 'brine-alpha': '1.0', 'brine-beta': '1.10' });
    expect(await call('lowpkg.list_pkgs', ['brine-alpha', 'brine-nosuch'], { root })).toEqual({ 'brine-alpha': '1.0' });
    expect(await call('lowpkg.list_pkgs', ['brine-nosuch'], { root })).toEqual({});
    const rootError = (r: string): string =>
      `ERROR executing 'lowpkg.list_pkgs': root must be the absolute path of an existing directory (the top of the system whose rpm database to read), not '${r}'`;
    expect(await failure('lowpkg.list_pkgs', [], { root: 'relative/root' })).toBe(rootError('relative/root'));
    expect(await failure('lowpkg.list_pkgs', [], { root: join(dir, 'nosuch') })).toBe(rootError(join(dir, 'nosuch')));
  });

  it('a root whose rpm database cannot be opened is an error naming it, not an empty answer', async () => {
    const bad = join(dir, 'bad-root');
    // A file where rpm's database directory should be (Debian's rpm keeps it in ~/.rpmdb, RHEL's in /var/lib/rpm).
    const dbpath = join(bad, execFileSync('rpm', ['--eval', '%_dbpath'], { encoding: 'utf8' }).trim());
    mkdirSync(dirname(dbpath), { recursive: true });
    writeFileSync(dbpath, '');
    const cannotOpen = `error: cannot open Packages database in ${dbpath}`;
    expect(await failure('lowpkg.list_pkgs', [], { root: bad })).toBe(`ERROR: rpm failed: ${cannotOpen}`);
    expect(await failure('lowpkg.file_list', ['brine-alpha'], { root: bad })).toBe(`ERROR: rpm failed: ${cannotOpen}`);
    expect(await failure('lowpkg.file_dict', [], { root: bad })).toBe(`ERROR: rpm failed: ${cannotOpen}`);
    expect(await failure('lowpkg.info', [], { root: bad })).toBe(`ERROR: rpm failed: ${cannotOpen}`);
    expect(await failure('lowpkg.owner', ['/etc/x.conf'], { root: bad })).toBe(`ERROR: rpm failed: ${cannotOpen}`);
    expect(await failure('lowpkg.modified', [], { root: bad })).toMatch(
      new RegExp(`^ERROR: Failed to verify package\\(s\\): ${cannotOpen}`),
    );
    expect(await failure('lowpkg.verify', [], { root: bad })).toMatch(new RegExp(`^ERROR: Failed to verify package\\(s\\): ${cannotOpen}`));
  });

  it('verify: what rpm -V found in each altered file; a package not installed refused', async () => {
    freshAlpha();
    expect(await call('lowpkg.verify', ['brine-alpha'], { root })).toEqual({});
    alterAlpha();
    expect(await call('lowpkg.verify', ['brine-alpha'], { root })).toEqual({
      [ALPHA_CONF]: { mismatch: ['size', 'md5sum', 'mtime'], type: 'config' },
      [ALPHA_BLOB]: { mismatch: ['mode'] },
      [ALPHA_README]: { missing: true, type: 'doc' },
    });
    expect(await call('lowpkg.verify', [], { root, ignore_types: 'config,doc' })).toEqual({ [ALPHA_BLOB]: { mismatch: ['mode'] } });
    expect(await failure('lowpkg.verify', ['brine-nosuch'], { root })).toBe(
      `ERROR: Failed to verify package(s): ${NOT_INSTALLED}. Name only installed packages (pkg.list_pkgs)`,
    );
    expect(await failure('lowpkg.verify', [], { root, verify_options: 3 })).toBe(
      "ERROR executing 'lowpkg.verify': verify_options must be a list or a comma-separated string",
    );
  });

  it('modified: each altered file with what changed; name patterns; filters by change', async () => {
    freshAlpha();
    expect(await call('lowpkg.modified', [], { root })).toEqual({});
    alterAlpha();
    const altered = {
      [ALPHA_CONF]: ['size', 'checksum', 'time', 'config'],
      [ALPHA_BLOB]: ['mode'],
      [ALPHA_README]: ['missing'],
    };
    expect(await call('lowpkg.modified', [], { root })).toEqual(altered);
    expect(await call('lowpkg.modified', ['brine-alpha', 'brine-beta'], { root })).toEqual(altered);
    expect(await call('lowpkg.modified', ['brine-a*'], { root })).toEqual(altered);
    // A name that matches nothing is no package to check (rpm -Va's patterns).
    expect(await call('lowpkg.modified', ['brine-nosuch'], { root })).toEqual({});
    expect(await call('lowpkg.modified', ['brine-beta'], { root })).toEqual({});
    expect(await call('lowpkg.modified', [], { root, config: true })).toEqual({ [ALPHA_CONF]: altered[ALPHA_CONF] });
    expect(await call('lowpkg.modified', [], { root, mode: false })).toEqual({
      [ALPHA_CONF]: altered[ALPHA_CONF],
      [ALPHA_README]: ['missing'],
    });
    expect(await call('lowpkg.modified', [], { root, size: true, time: true, missing: false })).toEqual({
      [ALPHA_CONF]: altered[ALPHA_CONF],
    });
    expect(await failure('lowpkg.modified', [], { root: 'relative' })).toMatch(/^ERROR executing 'lowpkg.modified': root must be/);
  });

  it('file_list and file_dict: the files of packages; a name not installed is an error entry', async () => {
    expect(await call('lowpkg.file_list', ['brine-alpha'], { root })).toEqual({ errors: [], files: ALPHA_FILES });
    expect(await call('lowpkg.file_list', ['brine-alpha', 'brine-nosuch'], { root })).toEqual({
      errors: [NOT_INSTALLED],
      files: ALPHA_FILES,
    });
    const betaFiles = [SHARED_DIR, `${SHARED_DIR}/beta-1.5/file`, SHARED_DIR, `${SHARED_DIR}/beta-1.10/file`];
    // Every package's files, in the database's order (alpha is reinstalled by other tests): compared sorted.
    const all = (await call('lowpkg.file_list', [], { root })) as { errors: string[]; files: string[] };
    expect({ errors: all.errors, files: [...all.files].sort() }).toEqual({ errors: [], files: [...ALPHA_FILES, ...betaFiles].sort() });
    expect(await call('lowpkg.file_dict', ['brine-alpha', 'brine-beta', 'brine-nosuch'], { root })).toEqual({
      errors: [NOT_INSTALLED],
      packages: { 'brine-alpha': ALPHA_FILES, 'brine-beta': betaFiles },
    });
    expect(await call('lowpkg.file_dict', [], { root })).toEqual({
      errors: [],
      packages: { 'brine-alpha': ALPHA_FILES, 'brine-beta': betaFiles },
    });
  });

  it("owner: the owning package, '' for a path no package owns or that is not there", async () => {
    expect(await call('lowpkg.owner', [ALPHA_CONF], { root })).toBe('brine-alpha');
    // A directory of both packages (and of both versions of beta).
    expect(await call('lowpkg.owner', [SHARED_DIR], { root })).toBe('brine-alpha,brine-beta');
    // rpm looks for a path it has no owner for outside --root: this directory is there, unowned.
    expect(await call('lowpkg.owner', [dir], { root })).toBe('');
    expect(await call('lowpkg.owner', ['/etc/nosuch.conf'], { root })).toBe('');
    expect(await call('lowpkg.owner', [ALPHA_CONF, `${SHARED_DIR}/beta-1.5/file`, dir, '/etc/nosuch.conf'], { root })).toEqual({
      [ALPHA_CONF]: 'brine-alpha',
      [`${SHARED_DIR}/beta-1.5/file`]: 'brine-beta',
      [dir]: '',
      '/etc/nosuch.conf': '',
    });
    expect(await call('lowpkg.owner', [], { root })).toBe('');
  });

  it('info: every attribute of the newest version; attr; all_versions; names not installed left out', async () => {
    const alphaTime = installTime('brine-alpha', '1.0');
    const iso = (t: number): string => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
    const built = { build_date_time_t: RPM_BUILD_TIME, build_date: '2001-01-01T00:00:00Z', build_host: RPM_BUILD_HOST };
    const alphaInfo = {
      relocations: '(not relocatable)',
      version: '1.0',
      vendor: 'Brine',
      release: '3',
      epoch: '2',
      ...built,
      install_date_time_t: alphaTime,
      install_date: iso(alphaTime),
      group: 'Applications/System',
      source_rpm: 'brine-alpha-1.0-3.src.rpm',
      // greeting=hello\n, a\0b\n and read me\n: 15 + 4 + 8 bytes.
      size: '27',
      arch: 'noarch',
      license: 'MIT',
      signature: '(none)',
      packager: 'Brine Tests <brine@example.org>',
      url: 'https://example.org/alpha',
      summary: 'First package for lowpkg',
      description: 'First line.\n--- a rule ---\nLast line.',
    };
    expect(await call('lowpkg.info', ['brine-alpha'], { root })).toEqual({ 'brine-alpha': alphaInfo });
    const betaInfo = (version: string): Record<string, unknown> => {
      const t = installTime('brine-beta', version);
      return {
        relocations: '(not relocatable)',
        version,
        vendor: '(none)',
        release: '1',
        ...built,
        install_date_time_t: t,
        install_date: iso(t),
        group: 'Unspecified',
        source_rpm: `brine-beta-${version}-1.src.rpm`,
        size: String(`beta ${version}\n`.length),
        arch: 'noarch',
        license: 'GPL',
        signature: '(none)',
        summary: 'Second package',
        description: 'Second package',
      };
    };
    // 1.10 is newer than 1.5 to rpm.
    expect(await call('lowpkg.info', [], { root })).toEqual({ 'brine-alpha': alphaInfo, 'brine-beta': betaInfo('1.10') });
    expect(await call('lowpkg.info', ['brine-beta'], { root, all_versions: true })).toEqual({
      'brine-beta': [
        { ...betaInfo('1.10'), edition: '1.10-1' },
        { ...betaInfo('1.5'), edition: '1.5-1' },
      ],
    });
    expect(await call('lowpkg.info', ['brine-alpha', 'brine-beta'], { root, attr: 'version,size' })).toEqual({
      'brine-alpha': { version: '1.0', size: '27' },
      'brine-beta': { version: '1.10', size: '10' },
    });
    expect(await call('lowpkg.info', ['brine-alpha'], { root, attr: ['epoch', 'description', 'edition'] })).toEqual({
      'brine-alpha': { epoch: '2', description: alphaInfo.description, edition: '2:1.0-3' },
    });
    expect(await call('lowpkg.info', ['brine-nosuch'], { root })).toEqual({});
    expect(await failure('lowpkg.info', ['brine-alpha'], { root, attr: 'build_date_iso' })).toBe(
      'ERROR: No valid attributes found. Valid attributes are: name, relocations, version, vendor, release, epoch, ' +
        'build_date_time_t, build_date, install_date_time_t, install_date, build_host, group, source_rpm, size, arch, ' +
        'license, signature, packager, url, summary, description',
    );
    expect(await failure('lowpkg.info', ['brine-alpha'], { root, attr: 5 })).toBe(
      "ERROR executing 'lowpkg.info': attr must be a list or a comma-separated string",
    );
  });

  it.skipIf(!cpio)(
    "diff: the file against the package's copy; binary content only said to differ; unusable arguments refused",
    async () => {
      mkdirSync(join(dir, 'host'), { recursive: true });
      writeFileSync(gammaConf, 'one\ntwo\n');
      expect(await call('lowpkg.diff', [gamma, gammaConf])).toBe('');
      writeFileSync(gammaConf, 'one\n2\nthree\n');
      expect(await call('lowpkg.diff', [gamma, gammaConf])).toBe(
        [`--- A ${gammaConf}`, `+++ B ${gammaConf}`, '@@ -1,2 +1,3 @@', ' one', '-two', '+2', '+three'].join('\n'),
      );
      writeFileSync(gammaBin, Buffer.from([1, 0, 3]));
      expect(await call('lowpkg.diff', [gamma, gammaBin])).toBe(`File '${gammaBin}' is binary and its content has been modified.`);
      expect(await failure('lowpkg.diff', [gamma, join(dir, 'host', 'other.conf')])).toBe(
        `ERROR: ${join(dir, 'host', 'other.conf')} is not a file of ${gamma}`,
      );
      expect(await failure('lowpkg.diff', [join(dir, 'nosuch.rpm'), gammaConf])).toBe(
        `ERROR: ${join(dir, 'nosuch.rpm')} does not exist on minion`,
      );
      expect(await failure('lowpkg.diff', ['salt://brine-gamma.rpm', gammaConf])).toBe(
        "ERROR executing 'lowpkg.diff': lowpkg.diff reads an .rpm file on the minion, not salt://brine-gamma.rpm: fetch it with " +
          'cp.cache_file and pass the path that returns',
      );
      unlinkSync(gammaConf);
      expect(await failure('lowpkg.diff', [gamma, gammaConf])).toBe(
        `ERROR: Unable to diff ${gammaConf}: diff: ${gammaConf}: No such file or directory`,
      );
      expect(await failure('lowpkg.diff', [gamma])).toMatch(
        /^Passed invalid arguments to lowpkg.diff: diff\(\) missing 1 required positional argument: 'path'/,
      );
    },
  );

  it('diff names a missing tool, as Salt does', async () => {
    const real = new NodeShell();
    const noCpio = await createHarness({
      modules: [RpmLowpkgModule],
      grains: GRAINS,
      pillar: {},
      shell: {
        run: (command, options) => real.run(command, options),
        runBackground: (command, options) => real.runBackground(command, options),
        which: async (name) => (name === 'cpio' ? null : real.which(name)),
      },
    });
    const res = await noCpio.call('lowpkg.diff', [gamma, gammaConf]);
    expect(res.return).toBe("ERROR: The 'cpio' binary was not found in $PATH.");
  });

  it('checksum: whether each file is an .rpm whose digests check out', async () => {
    const truncated = join(dir, 'truncated.rpm');
    writeFileSync(truncated, readFileSync(alpha).subarray(0, 2000));
    expect(await call('lowpkg.checksum', [alpha, beta15], { root })).toEqual({ [alpha]: true, [beta15]: true });
    expect(await call('lowpkg.checksum', [truncated, join(dir, 'nosuch.rpm'), dir])).toEqual({
      [truncated]: false,
      [join(dir, 'nosuch.rpm')]: false,
      [dir]: false,
    });
    expect(await failure('lowpkg.checksum', [], { root })).toBe('ERROR: No package files has been specified.');
  });

  it('version_cmp: rpm order, the release only when both have one, ignore_epoch', async () => {
    expect(await call('lowpkg.version_cmp', ['1.10', '1.5'])).toBe(1);
    expect(await call('lowpkg.version_cmp', ['0.2-001', '0.2.0.1-002'])).toBe(-1);
    expect(await call('lowpkg.version_cmp', ['3.2', '3.2-1'])).toBe(0);
    expect(await call('lowpkg.version_cmp', ['1.0~rc1', '1.0'])).toBe(-1);
    expect(await call('lowpkg.version_cmp', ['2:1.0-3', '1.10-1'])).toBe(1);
    expect(await call('lowpkg.version_cmp', ['2:1.0-3', '1.10-1'], { ignore_epoch: true })).toBe(-1);
    expect(await failure('lowpkg.version_cmp', ['1.0'])).toMatch(
      /^Passed invalid arguments to lowpkg.version_cmp: version_cmp\(\) missing 1 required positional argument: 'ver2'/,
    );
  });
});
