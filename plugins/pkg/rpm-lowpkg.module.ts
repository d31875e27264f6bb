import { statSync } from 'node:fs';
import {
  CommandExecutionError,
  Fn,
  IGrains,
  ISalt,
  IShell,
  InvocationError,
  Module,
  arg,
  inject,
  isTrue,
  type ShellResult,
} from 'brine/plugin';
import { hasFileProto, packageFile } from './pkg-args';
import { findOnPath, isRedHatFamily } from './pkg-backends';
import { listOption, rpmCommand, RPM_VERIFY_DOCS, rpmVerify } from './rpm-cmd';
import { newestRpmInfo, parseRpmInfo, RPM_INFO_ATTRS, rpmInfoQueryformat, type RpmInfo } from './rpm-info';
import {
  parsePkginfo,
  parseRpmFileDict,
  parseRpmFileList,
  parseRpmModified,
  parseRpmNameVersion,
  rpmQueryformat,
  rpmVersionCmp,
  RPM_FILES_QUERYFORMAT,
  type RpmPkgInfo,
  type RpmVerifyEntry,
} from './rpm-parse';

const FAILED = 'The rpm execution module failed to load';

/** Salt's `__virtual__` of rpm_lowpkg: the rpm binary, and an RPM-based os_family (or one of the yum distributions). */
function available(grains: Record<string, unknown>): true | string {
  if (findOnPath(['rpm']) === null) return `${FAILED}: rpm binary is not in the path.`;
  if (grains.os === undefined || grains.os_family === undefined) return `${FAILED}: failed to detect os or os_family grains.`;
  if (isRedHatFamily(grains) || String(grains.os_family).toLowerCase() === 'suse') return true;
  return (
    `${FAILED}: only available on redhat/suse type systems or amazon, xcp, xenserver, virtuozzolinux, virtuozzo, ` +
    'issabel pbx or openeuler.'
  );
}

/** The package file's copy of `$2` against the file at `$2`, as Salt's diff pipes it; stderr joins the output, as in cmd.shell. */
const DIFF_SCRIPT =
  'exec 2>&1; rpm2cpio "$1" | cpio -i --quiet --to-stdout ".$2" | diff -u --label "A $2" --from-file=- --label "B $2" "$2"';

const isFile = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;

/**
 * Salt's `lowpkg` on the RHEL family (rpm_lowpkg): what rpm itself knows of installed packages and
 * of .rpm files, below dnf. Every function that reads the database takes `root` (rpm's --root).
 */
@Module('lowpkg', { doc: 'Support for rpm', file: 'rpm_lowpkg', available })
export class RpmLowpkgModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(ISalt) private readonly salt: ISalt,
  ) {}

  /** A query of the rpm database: an rpm that fails with something on stderr is an error (a name not installed is not). */
  private async query(kwargs: Record<string, unknown>, args: string[], env?: Record<string, string>): Promise<ShellResult> {
    const res = await this.shell.run(
      [...rpmCommand(kwargs), ...args],
      env ? { pythonShell: false, env, cleanEnv: true } : { pythonShell: false },
    );
    if (res.retcode !== 0 && res.stderr.trim()) throw new CommandExecutionError(`rpm failed: ${res.stderr.trim()}`);
    return res;
  }

  @Fn({
    summary: 'What an .rpm file is: {name, version, arch, repoid, install_date, install_date_time_t} (rpm -qp)',
    description:
      'path: an absolute path on the minion, or a salt:// (or other fileserver) URL, cached first from saltenv. version is ' +
      'epoch:version-release (epoch 0 left out); a foreign architecture is named name.arch; repoid is "none" and the ' +
      'install dates None, as for any package file.',
    examples: [
      "salt '*' lowpkg.bin_pkg_info /root/salt-2015.5.1-2.el7.noarch.rpm",
      "salt '*' lowpkg.bin_pkg_info salt://salt-2015.5.1-2.el7.noarch.rpm",
    ],
    args: { path: arg.string({ nonEmpty: true }), saltenv: arg.string({ default: 'base' }) },
  })
  async bin_pkg_info({ path, saltenv }: { path: string; saltenv: string }): Promise<RpmPkgInfo> {
    const local = await packageFile(this.salt, path, saltenv);
    // --nomanifest: rpm would otherwise read a text file as a list of package paths to open.
    const res = await this.shell.run(['rpm', '-qp', '--nomanifest', '--queryformat', rpmQueryformat('none'), local], {
      pythonShell: false,
    });
    const info = parsePkginfo(res.stdout, String(this.grains.get('osarch') ?? 'x86_64'));
    // Salt answers None here; an error says which file and why (pkg.installed reads the version of the answer).
    if (!info)
      throw new CommandExecutionError(`Unable to read ${local} as an rpm package${res.stderr.trim() ? `: ${res.stderr.trim()}` : ''}`);
    return info;
  }

  @Fn({
    summary: 'The installed packages as {name: version} (version without epoch or release), all or those named',
    description: 'Names not installed are left out. Of several installed versions of one name, the last rpm lists is given.',
    examples: ["salt '*' lowpkg.list_pkgs", "salt '*' lowpkg.list_pkgs bash openssl root=/mnt/sysimage"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async list_pkgs({ packages, kwargs }: { packages: unknown[]; kwargs: Record<string, unknown> }): Promise<Record<string, string>> {
    const res = await this.query(kwargs, [
      packages.length > 0 ? '-q' : '-qa',
      '--queryformat',
      '%{NAME} %{VERSION}\\n',
      ...packages.map(String),
    ]);
    return parseRpmNameVersion(res.stdout).pkgs;
  }

  @Fn({
    ...RPM_VERIFY_DOCS,
    examples: [
      "salt '*' lowpkg.verify",
      "salt '*' lowpkg.verify httpd postfix",
      "salt '*' lowpkg.verify httpd postfix ignore_types=['config','doc']",
      "salt '*' lowpkg.verify httpd verify_options=['nodeps','nosize']",
    ],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  verify({ packages, kwargs }: { packages: unknown[]; kwargs: Record<string, unknown> }): Promise<Record<string, RpmVerifyEntry>> {
    return rpmVerify(this.shell, packages, kwargs);
  }

  @Fn({
    summary:
      'The altered files of packages (rpm -Va): {path: [size, mode, checksum, device, symlink, owner, group, time, capabilities, config]}',
    description:
      'Packages are name patterns (rpm -Va): no names, every package; a name that matches nothing gives {}. A missing ' +
      "file is ['missing']; 'config' marks a config file. Any other keyword filters: size=True keeps the files whose " +
      'size changed, mode=False those whose mode did not.',
    examples: ["salt '*' lowpkg.modified httpd", "salt '*' lowpkg.modified httpd postfix", "salt '*' lowpkg.modified config=True"],
    args: {},
    varargs: 'packages',
    kwargs: 'flags',
  })
  async modified({ packages, flags }: { packages: unknown[]; flags: Record<string, unknown> }): Promise<Record<string, string[]>> {
    const res = await this.shell.run([...rpmCommand(flags), '-Va', ...packages.map(String)], { pythonShell: false });
    // rpm exits 1 when a file is altered (and more with several named packages): only an empty
    // stdout with a failure is an error. Salt answered {pid, retcode, stderr} for any exit above 1.
    if (!res.stdout.trim() && res.retcode !== 0)
      throw new CommandExecutionError(`Failed to verify package(s)${res.stderr.trim() ? `: ${res.stderr.trim()}` : ''}`);
    const data = parseRpmModified(res.stdout);
    const filters = Object.entries(flags).filter(([k]) => k !== 'root' && !k.startsWith('_'));
    if (filters.length === 0) return data;
    return Object.fromEntries(
      Object.entries(data).filter(([, stats]) => filters.every(([param, want]) => isTrue(want) === stats.includes(param))),
    );
  }

  @Fn({
    summary: 'The files of installed packages, every package when none is named: {errors: [...], files: [paths]} (rpm -ql)',
    description: "A name that is not installed gives rpm's line in errors.",
    examples: ["salt '*' lowpkg.file_list httpd", "salt '*' lowpkg.file_list httpd postfix", "salt '*' lowpkg.file_list"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async file_list({
    packages,
    kwargs,
  }: {
    packages: unknown[];
    kwargs: Record<string, unknown>;
  }): Promise<{ errors: string[]; files: string[] }> {
    const res = await this.query(kwargs, [packages.length > 0 ? '-ql' : '-qla', ...packages.map(String)]);
    // Salt listed "package X is not installed" among the files; it is an error here.
    return parseRpmFileList(res.stdout);
  }

  @Fn({
    summary: 'The files of installed packages by package, every package when none is named: {errors: [...], packages: {name: [paths]}}',
    description: "A name that is not installed gives rpm's line in errors.",
    examples: ["salt '*' lowpkg.file_dict httpd", "salt '*' lowpkg.file_dict httpd postfix", "salt '*' lowpkg.file_dict"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async file_dict({
    packages,
    kwargs,
  }: {
    packages: unknown[];
    kwargs: Record<string, unknown>;
  }): Promise<{ errors: string[]; packages: Record<string, string[]> }> {
    // One query for names and files. Salt ran rpm -ql once per package, and without the root.
    const res = await this.query(kwargs, [
      packages.length > 0 ? '-q' : '-qa',
      '--queryformat',
      RPM_FILES_QUERYFORMAT,
      ...packages.map(String),
    ]);
    return parseRpmFileDict(res.stdout);
  }

  @Fn({
    summary: "The package that owns a file: a string for one path ('' when no package owns it), {path: name} for several",
    description: 'A path owned by several packages gives their names, sorted and joined with commas.',
    examples: ["salt '*' lowpkg.owner /usr/bin/apachectl", "salt '*' lowpkg.owner /usr/bin/apachectl /etc/httpd/conf/httpd.conf"],
    args: {},
    varargs: 'paths',
    kwargs: true,
  })
  async owner({ paths, kwargs }: { paths: unknown[]; kwargs: Record<string, unknown> }): Promise<string | Record<string, string>> {
    if (paths.length === 0) return '';
    const base = rpmCommand(kwargs);
    const ret: Record<string, string> = {};
    for (const path of paths.map(String)) {
      const res = await this.shell.run([...base, '-qf', '--queryformat', '%{name}\\n', path], { pythonShell: false });
      // rpm's "error: file <path>: No such file or directory" (a path in no package and not on the
      // host: rpm looks for it outside --root) answers '', as Salt documents; any other error is
      // rpm failing (a database it cannot open), which Salt also answered ''.
      const errors = [...new Set(res.stderr.split('\n').filter((l) => l.trim() && !l.startsWith(`error: file ${path}: `)))];
      if (res.retcode !== 0 && errors.length > 0) throw new CommandExecutionError(`rpm failed: ${errors.join('\n')}`);
      // Salt's format has no newline, so several owners ran together ("ab"); here they are listed.
      const names = [...new Set(res.stdout.split('\n').filter(Boolean))].sort();
      ret[path] = res.stdout.toLowerCase().includes('not owned') ? '' : names.join(',');
    }
    const values = Object.values(ret);
    return values.length === 1 ? values[0] : ret;
  }

  @Fn({
    summary: "A unified diff of a file against its copy in an .rpm file: '' when they are the same",
    description:
      'package_path: an .rpm file on the minion; path: the absolute path of one of its files, compared with the file at ' +
      'that path. Needs rpm2cpio, cpio and diff. Binary content is not shown, only that it differs.',
    examples: ["salt '*' lowpkg.diff /path/to/apache2.rpm /etc/apache2/httpd.conf"],
    args: { package_path: arg.string({ nonEmpty: true }), path: arg.string({ nonEmpty: true }) },
  })
  async diff({ package_path, path }: { package_path: string; path: string }): Promise<string> {
    for (const bin of ['rpm2cpio', 'cpio', 'diff'])
      if ((await this.shell.which(bin)) === null) throw new CommandExecutionError(`The '${bin}' binary was not found in $PATH.`);
    if (hasFileProto(package_path))
      throw new InvocationError(
        `lowpkg.diff reads an .rpm file on the minion, not ${package_path}: fetch it with cp.cache_file and pass the path that returns`,
      );
    if (!isFile(package_path)) throw new CommandExecutionError(`${package_path} does not exist on minion`);
    // Salt diffs whatever the package holds at that path, so a path it lacks came out as a diff
    // against an empty file: the path is checked against the package's list first.
    const list = await this.shell.run(['rpm', '-qlp', '--nomanifest', package_path], { pythonShell: false });
    if (list.retcode !== 0)
      throw new CommandExecutionError(
        `Unable to read ${package_path} as an rpm package${list.stderr.trim() ? `: ${list.stderr.trim()}` : ''}`,
      );
    if (!list.stdout.split('\n').includes(path)) throw new CommandExecutionError(`${path} is not a file of ${package_path}`);
    // The paths are the script's arguments, never part of its text (Salt formats them into a shell line).
    const res = await this.shell.run(['/bin/sh', '-c', DIFF_SCRIPT, 'sh', package_path, path], { pythonShell: false });
    const out = res.stdout.trimEnd();
    if (res.retcode > 1) throw new CommandExecutionError(`Unable to diff ${path}: ${out}`);
    if (out.startsWith('Binary file')) return `File '${path}' is binary and its content has been modified.`;
    return out;
  }

  @Fn({
    summary: 'What rpm knows of installed packages, all when none is named: {name: {version, release, arch, size, summary, ...}}',
    description:
      `attr: a comma-separated list of attributes (${RPM_INFO_ATTRS.join(', ')}); all of them when left out. ` +
      'build_date and install_date are ISO 8601 in UTC, the _time_t ones seconds. Of several installed versions, the ' +
      'newest is given; all_versions=True gives a list of every version with its edition. Names not installed are left out.',
    examples: [
      "salt '*' lowpkg.info apache2 bash",
      "salt '*' lowpkg.info apache2 bash attr=version",
      "salt '*' lowpkg.info apache2 bash attr=version,build_date,size",
      "salt '*' lowpkg.info apache2 bash attr=version,build_date,size all_versions=True",
    ],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async info({ packages, kwargs }: { packages: unknown[]; kwargs: Record<string, unknown> }): Promise<Record<string, RpmInfo | RpmInfo[]>> {
    const allVersions = isTrue(kwargs.all_versions ?? false);
    // LONGSIZE is not a tag of every rpm: SIZE is the fallback (Salt's issue #31366).
    const tags = await this.shell.run(['rpm', '--querytags'], { pythonShell: false });
    const sizeTag = tags.stdout.split('\n').includes('LONGSIZE') ? '%{LONGSIZE}' : '%{SIZE}';
    const attrs = kwargs.attr ? listOption(kwargs, 'attr') : null;
    const query = rpmInfoQueryformat(attrs, sizeTag);
    if (query === null) throw new CommandExecutionError(`No valid attributes found. Valid attributes are: ${RPM_INFO_ATTRS.join(', ')}`);
    // TZ=UTC and no other variable (Salt's clean_env): rpm's text in the C locale, untranslated.
    const res = await this.query(kwargs, [packages.length > 0 ? '-q' : '-qa', ...packages.map(String), '--queryformat', query], {
      TZ: 'UTC',
    });
    const withDescription = attrs === null || attrs.includes('description');
    return newestRpmInfo(parseRpmInfo(res.stdout, withDescription), allVersions, attrs?.includes('edition') ?? false);
  }

  @Fn({
    summary: 'Compare two versions as rpm does: -1, 0 or 1',
    description: 'Epoch, then version, then release; the release counts only when both versions have one.',
    examples: ["salt '*' lowpkg.version_cmp '0.2-001' '0.2.0.1-002'", "salt '*' lowpkg.version_cmp 1:1.0 2.0 ignore_epoch=True"],
    args: { ver1: arg.string(), ver2: arg.string(), ignore_epoch: arg.boolean({ default: false }) },
  })
  version_cmp({ ver1, ver2, ignore_epoch }: { ver1: string; ver2: string; ignore_epoch: boolean }): number {
    return rpmVersionCmp(ver1, ver2, ignore_epoch);
  }

  @Fn({
    summary: "Whether each .rpm file's digests and signatures check out (rpm -K): {path: True/False}",
    description: 'A path that is not a file is False. root: check signatures against the keys imported under that directory.',
    examples: ["salt '*' lowpkg.checksum /path/to/package1.rpm", "salt '*' lowpkg.checksum /path/to/package1.rpm /path/to/package2.rpm"],
    args: {},
    varargs: 'paths',
    kwargs: true,
  })
  async checksum({ paths, kwargs }: { paths: unknown[]; kwargs: Record<string, unknown> }): Promise<Record<string, boolean>> {
    if (paths.length === 0) throw new CommandExecutionError('No package files has been specified.');
    const base = rpmCommand(kwargs);
    const ret: Record<string, boolean> = {};
    for (const path of paths.map(String))
      ret[path] = isFile(path) && (await this.shell.run([...base, '-K', '--quiet', path], { pythonShell: false })).retcode === 0;
    return ret;
  }
}
