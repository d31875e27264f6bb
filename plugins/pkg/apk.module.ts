import { CommandExecutionError, Fn, IShell, InvocationError, Module, arg, fnmatch, inject, isTrue } from 'brine/plugin';
import { compareDicts, stringify, type PkgVersions } from './apt-parse';
import { parseApkInfo, parseApkSearch, parseApkUpgrades } from './apk-parse';
import { noBackend } from './pkg-backends';
import { pkgTargets, withErrors } from './pkg-args';

const TARGETS = { name: arg.string({ optional: true }), pkgs: arg.list({ optional: true }) };
type Changes = Record<string, { old: string; new: string }>;

/**
 * Salt's `pkg` on Alpine (apkpkg): apk info, apk add/del, apk upgrade, with Salt's return shapes.
 * Beyond Salt's apkpkg: a version in `pkgs`/`version=` is passed to apk as `name=version` (Salt
 * drops it), and version_cmp asks `apk version -t`. apk has no hold.
 */
@Module('pkg', {
  file: 'apkpkg',
  doc: 'Support for apk',
  available: (grains) => grains.os_family === 'Alpine' || noBackend(grains),
})
export class ApkPkgModule {
  constructor(@inject(IShell) private readonly shell: IShell) {}

  private async apk(args: string[]): Promise<{ stdout: string; stderr: string; retcode: number }> {
    return this.shell.run(['apk', ...args], { pythonShell: false });
  }

  private async installed(): Promise<PkgVersions> {
    return parseApkInfo((await this.apk(['info', '-v'])).stdout);
  }

  @Fn({
    summary: 'List the installed packages as {name: version} (apk info -v)',
    examples: ["salt '*' pkg.list_pkgs"],
    args: { versions_as_list: arg.boolean({ default: false }) },
    kwargs: true,
  })
  async list_pkgs({
    versions_as_list,
    kwargs,
  }: {
    versions_as_list: boolean;
    kwargs: Record<string, unknown>;
  }): Promise<Record<string, unknown>> {
    // removed/purge_desired are apt's notions: Salt's apkpkg answers {} for them.
    if (isTrue(kwargs.removed ?? false) || isTrue(kwargs.purge_desired ?? false)) return {};
    const pkgs = await this.installed();
    return versions_as_list ? pkgs : stringify(pkgs);
  }

  @Fn({
    summary: "The installed version of packages: a string for one name ('' when not installed), a dict for several",
    examples: ["salt '*' pkg.version busybox", "salt '*' pkg.version busybox musl"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async version({ names }: { names: unknown[] }): Promise<unknown> {
    const pkgs = stringify(await this.installed());
    const ret: Record<string, string> = {};
    let glob = false;
    for (const n of names.map(String)) {
      if (n.includes('*')) {
        glob = true;
        for (const m of Object.keys(pkgs).filter((p) => fnmatch(n, p))) ret[m] = pkgs[m];
      } else ret[n] = pkgs[n] ?? '';
    }
    const values = Object.values(ret);
    return values.length === 1 && !glob ? values[0] : ret;
  }

  @Fn({
    summary: 'Compare two versions as apk does (apk version -t): -1, 0 or 1',
    examples: ["salt '*' pkg.version_cmp 1.36.1-r15 1.36.1-r19"],
    args: { pkg1: arg.string(), pkg2: arg.string(), ignore_epoch: arg.boolean({ default: false }) },
    kwargs: true,
  })
  async version_cmp({ pkg1, pkg2 }: { pkg1: string; pkg2: string }): Promise<number> {
    const res = await this.apk(['version', '-t', pkg1, pkg2]);
    const sign = res.stdout.trim();
    if (sign === '<') return -1;
    if (sign === '=') return 0;
    if (sign === '>') return 1;
    throw new CommandExecutionError(`apk could not compare versions '${pkg1}' and '${pkg2}': ${res.stderr.trim() || sign}`);
  }

  @Fn({
    summary: 'Update the package index (apk update): True',
    examples: ["salt '*' pkg.refresh_db"],
    args: {},
    kwargs: true,
  })
  async refresh_db(): Promise<boolean> {
    const res = await this.apk(['update']);
    if (res.retcode !== 0)
      throw new CommandExecutionError(withErrors('Problem encountered installing package(s)', [res.stdout]), {
        info: { errors: [res.stdout], changes: false },
      });
    return true;
  }

  @Fn({
    summary: "The version that would be installed or upgraded to: '' when the installed one is the newest",
    examples: ["salt '*' pkg.latest_version busybox", "salt '*' pkg.latest_version busybox refresh=False"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async latest_version({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<unknown> {
    const list = names.map(String);
    if (list.length === 0) return '';
    const pkgs = stringify(await this.installed());
    if (isTrue(kwargs.refresh ?? true)) await this.refresh_db();
    const upgrades = parseApkUpgrades((await this.apk(['upgrade', '-s'])).stdout);
    const ret: Record<string, string> = {};
    for (const name of list) {
      ret[name] = upgrades[name] ?? '';
      if (ret[name]) continue;
      // Not upgradable: a package not installed shows its version in the index.
      const found = parseApkSearch((await this.apk(['search', name])).stdout, name);
      ret[name] = found && found !== pkgs[name] ? found : '';
    }
    return list.length === 1 ? ret[list[0]] : ret;
  }

  @Fn({
    summary: 'Whether an upgrade is available for a package',
    examples: ["salt '*' pkg.upgrade_available busybox"],
    args: { name: arg.string({ nonEmpty: true }) },
    kwargs: true,
  })
  async upgrade_available({ name, kwargs }: { name: string; kwargs: Record<string, unknown> }): Promise<boolean> {
    return (await this.latest_version({ names: [name], kwargs })) !== '';
  }

  @Fn({
    summary: 'Install packages (apk add; -u when one is installed already): {name: {old, new}}',
    description: 'A version (version=, or {name: version} in pkgs) is asked of apk as name=version.',
    examples: ["salt '*' pkg.install curl", `salt '*' pkg.install pkgs='["curl", {"jq": "1.7.1-r0"}]'`],
    args: {
      ...TARGETS,
      refresh: arg.boolean({ default: false }),
      version: arg.any({ optional: true }),
      sources: arg.list({ optional: true }),
    },
    kwargs: true,
  })
  async install(a: { name?: string; pkgs?: unknown[]; refresh: boolean; version?: unknown; sources?: unknown[] }): Promise<Changes> {
    if (a.sources && a.sources.length > 0) throw new InvocationError('apk installs from its repositories only: sources is not supported');
    const wanted = pkgTargets(a.name, a.pkgs, a.version);
    const names = Object.keys(wanted);
    if (names.length === 0) return {};
    const old = stringify(await this.installed());
    if (a.refresh) await this.refresh_db();
    const cmd = ['add'];
    if (names.some((n) => old[n])) cmd.push('-u');
    cmd.push(...names.map((n) => (wanted[n] ? `${n}=${String(wanted[n]).replace(/^=/, '')}` : n)));
    const res = await this.apk(cmd);
    const ret = compareDicts(old, stringify(await this.installed()));
    if (res.retcode !== 0 && res.stderr)
      throw new CommandExecutionError(withErrors('Problem encountered installing package(s)', [res.stderr]), {
        info: { errors: [res.stderr], changes: ret },
      });
    return ret;
  }

  private async uninstall(name: string | undefined, pkgs: unknown[] | undefined, purge: boolean): Promise<Changes> {
    const targets = Object.keys(pkgTargets(name, pkgs, undefined));
    if (targets.length === 0) return {};
    const old = stringify(await this.installed());
    const res = await this.apk(['del', ...(purge ? ['--purge'] : []), ...targets]);
    const ret = compareDicts(old, stringify(await this.installed()));
    if (res.retcode !== 0 && res.stderr)
      throw new CommandExecutionError(withErrors('Problem encountered removing package(s)', [res.stderr]), {
        info: { errors: [res.stderr], changes: ret },
      });
    return ret;
  }

  @Fn({ summary: 'Remove packages (apk del): {name: {old, new}}', examples: ["salt '*' pkg.remove curl"], args: TARGETS, kwargs: true })
  remove({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<Changes> {
    return this.uninstall(name, pkgs, false);
  }

  @Fn({
    summary: 'Remove packages and their configuration (apk del --purge)',
    examples: ["salt '*' pkg.purge curl"],
    args: TARGETS,
    kwargs: true,
  })
  purge({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<Changes> {
    return this.uninstall(name, pkgs, true);
  }

  @Fn({
    summary: 'Upgrade every package (apk upgrade), or the named ones (apk add -u): {changes, result, comment}',
    examples: ["salt '*' pkg.upgrade", "salt '*' pkg.upgrade name=busybox"],
    args: { ...TARGETS, refresh: arg.boolean({ default: true }) },
    kwargs: true,
  })
  async upgrade(a: { name?: string; pkgs?: unknown[]; refresh: boolean }): Promise<{ changes: Changes; result: boolean; comment: string }> {
    if (a.refresh) await this.refresh_db();
    const old = stringify(await this.installed());
    const targets = Object.keys(pkgTargets(a.name, a.pkgs, undefined));
    const res = await this.apk(targets.length > 0 ? ['add', '-u', ...targets] : ['upgrade']);
    const ret = { changes: {} as Changes, result: true, comment: '' };
    if (res.retcode !== 0) {
      ret.result = false;
      // Salt runs it with stderr folded into stdout.
      ret.comment = `${res.stdout}${res.stderr}`;
    }
    ret.changes = compareDicts(old, stringify(await this.installed()));
    return ret;
  }

  @Fn({
    summary: 'The packages an upgrade would change: {name: new version} (apk upgrade -s)',
    examples: ["salt '*' pkg.list_upgrades"],
    args: { refresh: arg.boolean({ default: true }) },
    kwargs: true,
  })
  async list_upgrades({ refresh }: { refresh: boolean }): Promise<Record<string, string>> {
    if (refresh) await this.refresh_db();
    const res = await this.apk(['upgrade', '-s']);
    if (res.retcode !== 0) throw new CommandExecutionError(`${res.stderr}${res.stdout}`);
    return parseApkUpgrades(res.stdout);
  }
}
