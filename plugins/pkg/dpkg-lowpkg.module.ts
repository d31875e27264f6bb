import { readFileSync, statSync } from 'node:fs';
import {
  CommandExecutionError,
  Fn,
  IGrains,
  IJobContext,
  ISalt,
  IShell,
  InvocationError,
  Module,
  arg,
  inject,
  pyStr,
  pyTruthy,
} from 'brine/plugin';
import { compareDicts, debianLicenses, DPKG_INFO_SEPARATOR, parseDebInfo, parseDpkgInfo, parseDselectAvailable } from './apt-parse';
import { packageFile } from './pkg-args';

/** The fields of `lowpkg.info` (Salt's `_get_pkg_info` format), `${binary}` for the package on Ubuntu before 12.04. */
function infoFormat(binVar: string): string {
  const fields = [
    `package:${binVar}`,
    'revision:${binary:Revision}',
    'architecture:${Architecture}',
    'maintainer:${Maintainer}',
    'summary:${Summary}',
    'source:${source:Package}',
    'version:${Version}',
    'section:${Section}',
    'installed_size:${Installed-size}',
    'size:${Size}',
    'MD5:${MD5sum}',
    'SHA1:${SHA1}',
    'SHA256:${SHA256}',
    'origin:${Origin}',
    'homepage:${Homepage}',
    'status:${db:Status-Abbrev}',
    'description:${Description}',
  ];
  return `-f=${fields.join('\\n')}\\n${DPKG_INFO_SEPARATOR}`;
}

/** A file's text, or null when it cannot be read (Salt reads these ignoring bad bytes). */
function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Keys `lowpkg.info` leaves out (Salt's "technical" keys, from dpkg-query or dselect). */
const TECHNICAL_KEYS = ['installed_size', 'depends', 'recommends', 'provides', 'replaces', 'conflicts', 'bugs', 'description-md5', 'task'];

/**
 * Salt's `lowpkg` on Debian and Ubuntu (dpkg_lowpkg): what dpkg itself knows of installed
 * packages and .deb files, below apt. `pkg.installed` uses `bin_pkg_info` to read a source
 * package's version and `unpurge` for packages marked for purge.
 */
@Module('lowpkg', {
  file: 'dpkg_lowpkg',
  doc: 'Support for DEB packages',
  available: (grains) =>
    grains.os_family === 'Debian' || 'The dpkg execution module cannot be loaded: only works on Debian family systems.',
})
export class DpkgLowpkgModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IJobContext) private readonly job: IJobContext,
  ) {}

  @Fn({
    summary: 'The name, version and architecture of a .deb file (dpkg -I): {name, version, arch}',
    description:
      'path: an absolute path on the minion, or a salt:// (or other fileserver) URL, cached first from saltenv. A foreign ' +
      'architecture on amd64 is named name:arch, as pkg.list_pkgs names it.',
    examples: [
      "salt '*' lowpkg.bin_pkg_info /root/foo-1.2.3-1ubuntu1_all.deb",
      "salt '*' lowpkg.bin_pkg_info salt://foo-1.2.3-1ubuntu1_all.deb",
    ],
    args: { path: arg.string({ nonEmpty: true }), saltenv: arg.string({ default: 'base' }) },
  })
  async bin_pkg_info({ path, saltenv }: { path: string; saltenv: string }): Promise<{ name: string; version: string; arch: string }> {
    const local = await packageFile(this.salt, path, saltenv);

    const res = await this.shell.run(['dpkg', '-I', local], { pythonShell: false });
    if (res.retcode !== 0) throw new CommandExecutionError(`Unable to get info for ${local}${res.stderr ? `: ${res.stderr.trim()}` : ''}`);
    const info = parseDebInfo(res.stdout);
    const missing = (['name', 'version', 'arch'] as const).filter((k) => info[k] === undefined);
    if (missing.length > 0 || !info.name || !info.version || !info.arch)
      throw new CommandExecutionError(`Unable to get ${missing.join(', ')} for ${local}`);
    let name = info.name;
    const osarch = this.grains.get('osarch');
    if (this.grains.get('cpuarch') === 'x86_64' && info.arch !== 'all' && osarch === 'amd64' && osarch !== info.arch)
      name += `:${info.arch}`;
    return { name, version: info.version, arch: info.arch };
  }

  @Fn({
    summary: "Set each package's selection back to 'install' (dpkg --set-selections): {name: {old, new}} of those marked for purge",
    examples: ["salt '*' lowpkg.unpurge curl"],
    args: {},
    varargs: 'packages',
  })
  async unpurge({ packages }: { packages: unknown[] }): Promise<Record<string, { old: string; new: string }>> {
    if (packages.length === 0) return {};
    const marked = async (): Promise<Record<string, string>> =>
      (await this.salt.call('pkg.list_pkgs', [], { purge_desired: true })) as Record<string, string>;
    const old = await marked();
    // Salt joins the lines with a literal backslash-n (a raw string), so dpkg reads one line and
    // only the first package changes; each package gets its own line here.
    const res = await this.shell.run(['dpkg', '--set-selections'], {
      stdin: packages.map((p) => `${String(p)} install\n`).join(''),
      pythonShell: false,
    });
    if (res.retcode !== 0) throw new CommandExecutionError(`dpkg --set-selections failed: ${res.stderr.trim() || `exit ${res.retcode}`}`);
    return compareDicts(old, await marked());
  }

  /** The installed packages among `packages` (all when none), as dpkg-query names them. */
  private async installedNames(packages: unknown[]): Promise<string[]> {
    const res = await this.shell.run(['dpkg-query', '-f=${db:Status-Status}\t${binary:Package}\n', '-W', ...packages.map(String)], {
      pythonShell: false,
    });
    if (res.retcode !== 0) throw new CommandExecutionError(`Error:  ${res.stderr.trim()}`);
    return res.stdout
      .split('\n')
      .map((l) => l.split('\t'))
      .filter(([status, name]) => status === 'installed' && name)
      .map(([, name]) => name);
  }

  /** `dpkg -L` of one installed package: its paths, in dpkg's order. */
  private async filesOf(pkg: string): Promise<string[]> {
    const res = await this.shell.run(['dpkg', '-L', pkg], { pythonShell: false });
    return res.stdout.split('\n').filter((l) => l !== '');
  }

  @Fn({
    summary: 'The installed packages as {name: version}, all or those named (dpkg-query)',
    description: 'A virtual package is not a package to dpkg: it is reported as not installed. A name dpkg does not know is an error.',
    examples: ["salt '*' lowpkg.list_pkgs", "salt '*' lowpkg.list_pkgs hostname mount"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async list_pkgs({ packages }: { packages: unknown[] }): Promise<Record<string, string>> {
    const res = await this.shell.run(
      ['dpkg-query', '-f=${db:Status-Status}\t${binary:Package}\t${Version}\n', '-W', ...packages.map(String)],
      {
        pythonShell: false,
      },
    );
    // Salt returns this text as the answer (with retcode 0); here it is the job's error.
    if (res.retcode !== 0) throw new CommandExecutionError(`Error:  ${res.stderr.trim()}`);
    const ret: Record<string, string> = {};
    for (const line of res.stdout.split('\n')) {
      const [status, name, version] = line.split('\t');
      if (status === 'installed' && name !== undefined && version !== undefined) ret[name] = version;
    }
    return ret;
  }

  @Fn({
    summary: 'The files of installed packages, all packages when none is named: {errors: [], files: [sorted paths]}',
    examples: ["salt '*' lowpkg.file_list hostname", "salt '*' lowpkg.file_list hostname mount", "salt '*' lowpkg.file_list"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async file_list({ packages }: { packages: unknown[] }): Promise<{ errors: string[]; files: string[] }> {
    const files = new Set<string>();
    for (const pkg of await this.installedNames(packages)) for (const f of await this.filesOf(pkg)) files.add(f);
    return { errors: [], files: [...files].sort() };
  }

  @Fn({
    summary: 'The files of installed packages by package, all packages when none is named: {errors: [], packages: {name: [paths]}}',
    examples: ["salt '*' lowpkg.file_dict hostname", "salt '*' lowpkg.file_dict hostname mount", "salt '*' lowpkg.file_dict"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async file_dict({ packages }: { packages: unknown[] }): Promise<{ errors: string[]; packages: Record<string, string[]> }> {
    const ret: Record<string, string[]> = {};
    for (const pkg of await this.installedNames(packages)) ret[pkg] = await this.filesOf(pkg);
    return { errors: [], packages: ret };
  }

  @Fn({
    summary: 'What dpkg knows of installed packages (all when none is named): {name: {version, architecture, maintainer, ...}}',
    description:
      "Fields dpkg leaves empty are left out; install_date is when the package's file list was written; license " +
      "comes from the package's /usr/share/doc/<name>/copyright. failhard=False answers {} where a name is unknown.",
    examples: ["salt '*' lowpkg.info", "salt '*' lowpkg.info apache2 bash", "salt '*' lowpkg.info 'php5*' failhard=false"],
    args: {},
    varargs: 'packages',
    kwargs: true,
  })
  async info({
    packages,
    kwargs,
  }: {
    packages: unknown[];
    kwargs: Record<string, unknown>;
  }): Promise<Record<string, Record<string, string>>> {
    // failhard is keyword-only (Salt's info(*packages, **kwargs)); any other keyword is refused.
    const invalid = Object.entries(kwargs).filter(([k]) => k !== 'failhard' && !k.startsWith('__pub_'));
    if (invalid.length > 0)
      throw new InvocationError(`The following keyword arguments are not valid: ${invalid.map(([k, v]) => `${k}=${pyStr(v)}`).join(', ')}`);
    const failhard = pyTruthy(kwargs.failhard ?? true);
    const available = await this.dselectAvailable();
    const osReleaseInfo = this.grains.get('osrelease_info');
    const oldUbuntu =
      this.grains.get('os') === 'Ubuntu' &&
      Array.isArray(osReleaseInfo) &&
      (Number(osReleaseInfo[0]) < 12 || (Number(osReleaseInfo[0]) === 12 && Number(osReleaseInfo[1] ?? 0) < 4));
    const res = await this.shell.run(['dpkg-query', '-W', infoFormat(oldUbuntu ? '${binary}' : '${Package}'), ...packages.map(String)], {
      pythonShell: false,
    });
    if (res.retcode !== 0) {
      // Salt's cmd.run_all makes a failed command's exit code the job's, answer or not.
      this.job.retcode = res.retcode;
      if (!failhard) return {};
      throw new CommandExecutionError(`Error getting packages information: ${res.stderr.trim()}`);
    }
    const ret: Record<string, Record<string, string>> = {};
    for (const fields of parseDpkgInfo(res.stdout)) {
      // install_date follows package, as Salt's dict has it.
      const { package: name, ...rest } = fields;
      const pkg: Record<string, string> = { package: name };
      const installed = this.installDate(name);
      if (installed) pkg.install_date = installed;
      Object.assign(pkg, rest);
      for (const [k, v] of Object.entries(available[name] ?? {})) if (!(k in pkg)) pkg[k] = v;
      for (const k of TECHNICAL_KEYS) delete pkg[k];
      const license = debianLicenses(readText(`/usr/share/doc/${name}/copyright`) ?? '');
      if (license) pkg.license = license;
      ret[name] = pkg;
    }
    return ret;
  }

  /** Salt's `_get_pkg_install_time`: the mtime of dpkg's file list of the package, ISO 8601 in UTC to the second. */
  private installDate(pkg: string | undefined): string | null {
    if (!pkg) return null;
    const st = statSync(`/var/lib/dpkg/info/${pkg}.list`, { throwIfNoEntry: false });
    return st ? `${new Date(Math.trunc(st.mtimeMs / 1000) * 1000).toISOString().slice(0, 19)}Z` : null;
  }

  /** dselect's `available` file, read only where dselect is installed (as Salt does). */
  private async dselectAvailable(): Promise<Record<string, Record<string, string>>> {
    if (!(await this.shell.which('dselect'))) return {};
    const text = readText('/var/lib/dpkg/available');
    return text === null ? {} : parseDselectAvailable(text);
  }
}
