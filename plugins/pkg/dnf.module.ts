import {
  CommandExecutionError,
  Fn,
  IGrains,
  ISalt,
  IShell,
  InvocationError,
  Module,
  arg,
  fnmatch,
  inject,
  isTrue,
  type ShellResult,
} from 'brine/plugin';
import { compareDicts, stringify, type PkgVersions } from './apt-parse';
import { isRedHatFamily, noBackend, yumBinary } from './pkg-backends';
import { ARCHES, parseRpmQa, parseVersionlock, parseYumList, rpmVersionCmp, RPM_QUERYFORMAT, type RpmVerifyEntry } from './rpm-parse';
import { pkgTargets, saltenvOf, sourcePaths, withErrors } from './pkg-args';
import { RPM_VERIFY_DOCS, rpmVerify } from './rpm-cmd';

const TARGETS = { name: arg.string({ optional: true }), pkgs: arg.list({ optional: true }) };
type Changes = Record<string, { old: string; new: string }>;
type HoldEntry = { name: string; changes: Record<string, string>; result: boolean; comment: string };

/** Salt's `_get_options`: fromrepo (or repo), enablerepo/disablerepo, disableexcludes, setopt as dnf flags. */
function repoOptions(kwargs: Record<string, unknown>): string[] {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : String(v).split(','));
  const fromrepo = kwargs.fromrepo || kwargs.repo;
  const ret: string[] = [];
  if (fromrepo) ret.push('--disablerepo=*', `--enablerepo=${String(fromrepo)}`);
  else {
    if (kwargs.disablerepo) ret.push(...list(kwargs.disablerepo).map((x) => `--disablerepo=${x}`));
    if (kwargs.enablerepo) ret.push(...list(kwargs.enablerepo).map((x) => `--enablerepo=${x}`));
  }
  if (kwargs.disableexcludes) ret.push(`--disableexcludes=${String(kwargs.disableexcludes)}`);
  if (kwargs.branch) ret.push(`--branch=${String(kwargs.branch)}`);
  if (kwargs.setopt) ret.push(...list(kwargs.setopt).map((x) => `--setopt=${x}`));
  return ret;
}

/**
 * Salt's `pkg` on the RHEL family (yumpkg): rpm for what is installed, dnf (or dnf5, tdnf, yum,
 * whichever PATH has first) for repositories, the versionlock plugin for hold/unhold; Salt's
 * return shapes and comments.
 */
@Module('pkg', {
  file: 'yumpkg',
  doc: 'Support for YUM/DNF',
  available: (grains) => (isRedHatFamily(grains) && yumBinary() !== null) || noBackend(grains),
})
export class DnfPkgModule {
  private bin: string | null = null;

  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(ISalt) private readonly salt: ISalt,
  ) {}

  /** dnf5, dnf, tdnf or yum: the first on PATH, found once. */
  private yum(): string {
    this.bin ??= yumBinary();
    if (!this.bin) throw new CommandExecutionError('DNF nor YUM found: install dnf or yum, or check the PATH of the minion');
    return this.bin;
  }

  private call(args: string[]): Promise<ShellResult> {
    return this.shell.run([this.yum(), ...args], { pythonShell: false });
  }

  private get osarch(): string {
    return String(this.grains.get('osarch') ?? 'x86_64');
  }

  private async installed(): Promise<PkgVersions> {
    const res = await this.shell.run(['rpm', '-qa', '--nodigest', '--nosignature', '--queryformat', RPM_QUERYFORMAT], {
      pythonShell: false,
    });
    return parseRpmQa(res.stdout, this.osarch);
  }

  @Fn({
    summary: 'List the installed packages as {name: version} (rpm -qa)',
    examples: ["salt '*' pkg.list_pkgs", "salt '*' pkg.list_pkgs versions_as_list=True"],
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
    // removed/purge_desired are apt's notions: Salt's yumpkg answers {} for them.
    if (isTrue(kwargs.removed ?? false) || isTrue(kwargs.purge_desired ?? false)) return {};
    const pkgs = await this.installed();
    return versions_as_list ? pkgs : stringify(pkgs);
  }

  @Fn({
    summary: "The installed version of packages: a string for one name ('' when not installed), a dict for several or a glob",
    examples: ["salt '*' pkg.version bash", "salt '*' pkg.version bash openssl"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async version({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<unknown> {
    const pkgs = await this.installed();
    const ret: Record<string, string[]> = {};
    let glob = false;
    for (const n of names.map(String)) {
      if (n.includes('*')) {
        glob = true;
        for (const m of Object.keys(pkgs).filter((p) => fnmatch(n, p))) ret[m] = pkgs[m];
      } else ret[n] = pkgs[n] ?? [];
    }
    const out = isTrue(kwargs.versions_as_list ?? false) ? ret : stringify(ret);
    const values = Object.values(out);
    return values.length === 1 && !glob ? values[0] : out;
  }

  @Fn({
    summary: 'Compare two versions as rpm does: -1, 0 or 1',
    examples: ["salt '*' pkg.version_cmp '0.2-001' '0.2.0.1-002'"],
    args: { pkg1: arg.string(), pkg2: arg.string(), ignore_epoch: arg.boolean({ default: false }) },
    kwargs: true,
  })
  version_cmp({ pkg1, pkg2, ignore_epoch }: { pkg1: string; pkg2: string; ignore_epoch: boolean }): number {
    return rpmVersionCmp(pkg1, pkg2, ignore_epoch);
  }

  @Fn({
    summary: 'Expire the metadata cache and check for updates: True if updates are available, None if not, False on error',
    examples: ["salt '*' pkg.refresh_db"],
    args: { check_update: arg.boolean({ default: true }) },
    kwargs: true,
  })
  async refresh_db({ check_update, kwargs }: { check_update: boolean; kwargs: Record<string, unknown> }): Promise<boolean | null> {
    const options = repoOptions(kwargs);
    await this.call(['--quiet', '--assumeyes', 'clean', 'expire-cache', ...options]);
    if (!check_update) return true;
    const cmd = ['--quiet', '--assumeyes', 'check-update'];
    if (this.grains.get('os_family') === 'RedHat' && this.grains.get('osmajorrelease') === 7)
      cmd.push('--setopt=autocheck_running_kernel=false');
    const { retcode } = await this.call([...cmd, ...options]);
    // dnf check-update: 100 = updates available, 0 = none, 1 = error.
    return retcode === 100 ? true : retcode === 0 ? null : false;
  }

  @Fn({
    summary: "The version that would be installed or upgraded to: '' when the installed one is the newest or none exists",
    examples: ["salt '*' pkg.latest_version bash", "salt '*' pkg.latest_version bash refresh=False fromrepo=baseos"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async latest_version({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<unknown> {
    const list = names.map(String);
    if (list.length === 0) return '';
    const options = repoOptions(kwargs);
    if (isTrue(kwargs.refresh ?? true)) await this.refresh_db({ check_update: true, kwargs });
    const cur = await this.installed();
    const res = await this.call(['--quiet', ...options, 'list', 'available', ...list]);
    const updates =
      res.retcode === 0 ? parseYumList(res.stdout, this.osarch).sort((a, b) => rpmVersionCmp(b.version, a.version, false)) : [];
    const ret: Record<string, string> = {};
    for (const name of list) {
      const suffix = name.split('.').slice(-1)[0];
      const arch = name.includes('.') && ARCHES.includes(suffix) ? suffix : this.osarch;
      ret[name] = '';
      for (const pkg of updates.filter((u) => u.name === name)) {
        if (pkg.arch !== 'noarch' && pkg.arch !== arch) continue;
        // An upgrade only when newer than every installed version.
        if ((cur[name] ?? []).some((v) => rpmVersionCmp(v, pkg.version) >= 0)) continue;
        ret[name] = pkg.version;
        break;
      }
    }
    return list.length === 1 ? ret[list[0]] : ret;
  }

  @Fn({
    summary: 'Whether an upgrade is available for a package',
    examples: ["salt '*' pkg.upgrade_available bash"],
    args: { name: arg.string({ nonEmpty: true }) },
    kwargs: true,
  })
  async upgrade_available({ name, kwargs }: { name: string; kwargs: Record<string, unknown> }): Promise<boolean> {
    return (await this.latest_version({ names: [name], kwargs })) !== '';
  }

  @Fn({
    summary: 'The packages an upgrade would change: {name: new version}',
    examples: ["salt '*' pkg.list_upgrades"],
    args: { refresh: arg.boolean({ default: true }) },
    kwargs: true,
  })
  async list_upgrades({ refresh, kwargs }: { refresh: boolean; kwargs: Record<string, unknown> }): Promise<Record<string, string>> {
    if (refresh) await this.refresh_db({ check_update: false, kwargs });
    const dnf = ['dnf', 'dnf5'].includes(this.yum());
    const res = await this.call(['--quiet', ...repoOptions(kwargs), 'list', dnf ? '--upgrades' : 'updates']);
    return Object.fromEntries(parseYumList(res.stdout, this.osarch).map((p) => [p.name, p.version]));
  }

  @Fn({
    ...RPM_VERIFY_DOCS,
    examples: [
      "salt '*' pkg.verify",
      "salt '*' pkg.verify httpd postfix",
      "salt '*' pkg.verify httpd ignore_types=['config','doc']",
      "salt '*' pkg.verify httpd verify_options=['nodeps','nosize']",
    ],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  verify({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<Record<string, RpmVerifyEntry>> {
    // Salt's yumpkg.verify is lowpkg.verify: one implementation for both.
    return rpmVerify(this.shell, names, kwargs);
  }

  /** Salt's `_versionlock_pkg`: the package that gives this dnf/yum its versionlock command. */
  private versionlockPackage(): string {
    const bin = this.yum();
    if (bin === 'tdnf') throw new InvocationError('Cannot proceed, no versionlock for tdnf');
    if (bin === 'yum') return 'yum-plugin-versionlock';
    if (String(this.grains.get('os') ?? '').toLowerCase() === 'fedora')
      return Number(this.grains.get('osrelease')) >= 26 ? 'python3-dnf-plugin-versionlock' : 'python3-dnf-plugins-extras-versionlock';
    return Number(this.grains.get('osmajorrelease')) >= 8 ? 'python3-dnf-plugin-versionlock' : 'python2-dnf-plugin-versionlock';
  }

  /** The held packages (versionlock): full lock strings, or names only. */
  private async holds(full: boolean): Promise<string[]> {
    const plugin = this.versionlockPackage();
    if (!(plugin in (await this.installed()))) throw new InvocationError(`Cannot proceed, ${plugin} is not installed.`);
    const res = await this.shell.run([this.yum(), 'versionlock', 'list'], { pythonShell: false });
    if (res.retcode !== 0)
      throw new CommandExecutionError(`${this.yum()} versionlock list failed: ${res.stderr.trim() || `exit ${res.retcode}`}`);
    return parseVersionlock(res.stdout, this.yum(), full);
  }

  @Fn({
    summary: 'The versionlock entries: full (name-epoch:version-release.*) or names only',
    examples: ["salt '*' pkg.list_holds", "salt '*' pkg.list_holds full=False"],
    args: { pattern: arg.string({ optional: true }), full: arg.boolean({ default: true }) },
  })
  list_holds({ full }: { full: boolean }): Promise<string[]> {
    return this.holds(full);
  }

  @Fn({
    summary: 'Install packages: name (version=...), pkgs (names or {name: version}), or sources (.rpm files: local paths or salt://)',
    description: 'Returns {name: {old, new}} for every package that changed; a lower version than installed is a downgrade.',
    examples: [
      "salt '*' pkg.install vim",
      "salt '*' pkg.install vim version=2:9.0.2081-1.el9",
      `salt '*' pkg.install pkgs='["foo", {"bar": "1.2.3-4.el9"}]'`,
    ],
    args: {
      ...TARGETS,
      refresh: arg.boolean({ default: false }),
      skip_verify: arg.boolean({ default: false }),
      sources: arg.list({ optional: true }),
      reinstall: arg.boolean({ default: false }),
      update_holds: arg.boolean({ default: false }),
      ignore_epoch: arg.boolean({ default: false }),
      version: arg.any({ optional: true }),
    },
    kwargs: true,
  })
  async install(a: {
    name?: string;
    pkgs?: unknown[];
    refresh: boolean;
    skip_verify: boolean;
    sources?: unknown[];
    reinstall: boolean;
    update_holds: boolean;
    ignore_epoch: boolean;
    version?: unknown;
    kwargs: Record<string, unknown>;
  }): Promise<Changes> {
    const options = repoOptions(a.kwargs);
    if (a.refresh) await this.refresh_db({ check_update: true, kwargs: a.kwargs });
    const before = await this.installed();
    const old = stringify(before);
    const toInstall: [string, string][] = [];
    const toDowngrade: [string, string][] = [];
    const toReinstall: [string, string][] = [];
    if (a.sources && a.sources.length > 0) {
      toInstall.push(...(await sourcePaths(this.salt, a.sources, saltenvOf(a.kwargs))));
    } else {
      const wanted = pkgTargets(a.name, a.pkgs, a.version);
      if (Object.keys(wanted).length === 0) return {};
      for (const [name, version] of Object.entries(wanted)) {
        if (!version) {
          (a.reinstall && name in old ? toReinstall : toInstall).push([name, name]);
          continue;
        }
        const ver = version.replace(/^=/, '');
        let pkgname = name;
        let arch = '';
        const dot = name.lastIndexOf('.');
        if (dot !== -1 && ARCHES.includes(name.slice(dot + 1))) {
          arch = name.slice(dot);
          pkgname = name.slice(0, dot);
        }
        const pkgstr = `${pkgname}-${a.ignore_epoch ? ver : ver.split(':').slice(-1)[0]}${arch}`;
        const cver = before[pkgname] ?? [];
        if (a.reinstall && cver.length > 0) {
          if (cver.some((v) => rpmVersionCmp(ver, v, a.ignore_epoch) === 0)) toReinstall.push([pkgname, pkgstr]);
        } else if (cver.length === 0 || cver.some((v) => rpmVersionCmp(ver, v, a.ignore_epoch) >= 0)) toInstall.push([pkgname, pkgstr]);
        else if (/^kernel(|-devel)$/.test(pkgname)) toInstall.push([pkgname, pkgstr]);
        else toDowngrade.push([pkgname, pkgstr]);
      }
    }
    let holds: string[] = [];
    try {
      holds = await this.holds(false);
    } catch {
      // No versionlock plugin: nothing can be held.
    }
    const errors: string[] = [];
    const prevented: string[] = [];
    const common = [...options, ...(a.skip_verify ? ['--nogpgcheck'] : [])];
    const dnf = this.yum();
    const run = async (pkgs: [string, string][], verb: string[]): Promise<void> => {
      const targets: string[] = [];
      const unheld: string[] = [];
      for (const [name, str] of pkgs) {
        if (!holds.includes(name)) targets.push(str);
        else if (!a.update_holds) prevented.push(name);
        else {
          const out = await this.unhold({ pkgs: [name] });
          if (out[name]?.result) {
            targets.push(str);
            unheld.push(name);
          } else errors.push(name);
        }
      }
      try {
        if (targets.length === 0) return;
        const res = await this.shell.run([dnf, '-y', ...verb.slice(0, -1), ...common, ...verb.slice(-1), ...targets], {
          pythonShell: false,
        });
        if (res.retcode !== 0) errors.push(`${res.stdout}${res.stderr}`);
      } finally {
        if (unheld.length > 0) await this.hold({ pkgs: unheld });
      }
    };
    await run(toInstall, dnf === 'dnf' ? ['--best', '--allowerasing', 'install'] : ['install']);
    await run(toDowngrade, ['downgrade']);
    await run(toReinstall, ['reinstall']);
    const now = stringify(await this.installed());
    const ret = compareDicts(old, now);
    for (const [name] of toReinstall) if (!(name in ret) || name in old) ret[name] = { old: old[name] ?? '', new: now[name] ?? '' };
    if (prevented.length > 0)
      errors.push(
        `The following package(s) could not be updated because they are being held: ${prevented.join(', ')}. Set 'update_holds' to True to temporarily unhold these packages so that they can be updated.`,
      );
    if (errors.length > 0)
      throw new CommandExecutionError(
        withErrors(`Error occurred installing${toReinstall.length > 0 ? '/reinstalling' : ''} package(s)`, errors),
        {
          info: { errors, changes: ret },
        },
      );
    return ret;
  }

  @Fn({
    summary: 'Upgrade every package, or the named ones (dnf upgrade): {name: {old, new}}',
    examples: ["salt '*' pkg.upgrade", "salt '*' pkg.upgrade name=openssl"],
    args: {
      ...TARGETS,
      refresh: arg.boolean({ default: true }),
      skip_verify: arg.boolean({ default: false }),
      minimal: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async upgrade(a: {
    name?: string;
    pkgs?: unknown[];
    refresh: boolean;
    skip_verify: boolean;
    minimal: boolean;
    kwargs: Record<string, unknown>;
  }): Promise<Changes> {
    if (a.refresh) await this.refresh_db({ check_update: true, kwargs: a.kwargs });
    const old = stringify(await this.installed());
    const targets = Object.keys(pkgTargets(a.name, a.pkgs, undefined));
    const cmd = [
      '--quiet',
      '-y',
      ...repoOptions(a.kwargs),
      ...(a.skip_verify ? ['--nogpgcheck'] : []),
      a.minimal ? 'upgrade-minimal' : 'upgrade',
      ...targets,
    ];
    const res = await this.call(cmd);
    const ret = compareDicts(old, stringify(await this.installed()));
    if (res.retcode !== 0)
      throw new CommandExecutionError('Problem encountered upgrading packages', { info: { changes: ret, result: res } });
    return ret;
  }

  private async uninstall(name: string | undefined, pkgs: unknown[] | undefined): Promise<Changes> {
    const before = await this.installed();
    const old = stringify(before);
    const targets: string[] = [];
    for (const [pattern, version] of Object.entries(pkgTargets(name, pkgs, undefined))) {
      for (const target of Object.keys(old).filter((p) => fnmatch(pattern, p))) {
        if (!version) targets.push(target);
        else if (old[target].split(',').includes(version)) {
          const dot = target.lastIndexOf('.');
          const [pkgname, arch] =
            dot !== -1 && ARCHES.includes(target.slice(dot + 1)) ? [target.slice(0, dot), target.slice(dot)] : [target, ''];
          targets.push(`${pkgname}-${version.split(':').slice(-1)[0]}${arch}`);
        }
      }
    }
    if (targets.length === 0) return {};
    const res = await this.call(['-y', 'remove', ...targets]);
    const ret = compareDicts(old, stringify(await this.installed()));
    if (res.retcode !== 0 && res.stderr)
      throw new CommandExecutionError(withErrors('Error occurred removing package(s)', [res.stderr]), {
        info: { errors: [res.stderr], changes: ret },
      });
    return ret;
  }

  @Fn({
    summary: 'Remove packages (dnf remove): {name: {old, new}}',
    examples: ["salt '*' pkg.remove vim", `salt '*' pkg.remove pkgs='["foo", "bar"]'`],
    args: TARGETS,
    kwargs: true,
  })
  remove({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<Changes> {
    return this.uninstall(name, pkgs);
  }

  @Fn({
    summary: 'Remove packages; rpm has no separate purge, so this is remove',
    examples: ["salt '*' pkg.purge vim"],
    args: TARGETS,
    kwargs: true,
  })
  purge({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<Changes> {
    return this.uninstall(name, pkgs);
  }

  private targetsOf(a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): string[] {
    if (!a.name && !a.pkgs && !a.sources) throw new InvocationError('One of name, pkgs, or sources must be specified.');
    if (a.pkgs && a.sources) throw new InvocationError('Only one of pkgs or sources can be specified.');
    const raw: unknown[] = a.pkgs ?? a.sources ?? [a.name];
    return raw.map((t) => (typeof t === 'object' && t !== null ? Object.keys(t)[0] : String(t)));
  }

  @Fn({
    summary: 'Hold packages at their version (dnf versionlock add)',
    examples: ["salt '*' pkg.hold vim", `salt '*' pkg.hold pkgs='["foo", "bar"]'`],
    args: { ...TARGETS, sources: arg.list({ optional: true }) },
    kwargs: true,
  })
  async hold(a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): Promise<Record<string, HoldEntry>> {
    const targets = this.targetsOf(a);
    const current = await this.holds(false);
    const ret: Record<string, HoldEntry> = {};
    for (const target of targets) {
      const entry: HoldEntry = { name: target, changes: {}, result: false, comment: '' };
      ret[target] = entry;
      if (current.includes(target)) {
        entry.result = true;
        entry.comment = `Package ${target} is already set to be held.`;
      } else if ((await this.call(['versionlock', target])).retcode === 0) {
        entry.result = true;
        entry.comment = `Package ${target} is now being held.`;
        entry.changes = { new: 'hold', old: '' };
      } else entry.comment = `Package ${target} was unable to be held.`;
    }
    return ret;
  }

  @Fn({
    summary: 'Release held packages (dnf versionlock delete)',
    examples: ["salt '*' pkg.unhold vim"],
    args: { ...TARGETS, sources: arg.list({ optional: true }) },
    kwargs: true,
  })
  async unhold(a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): Promise<Record<string, HoldEntry>> {
    const targets = this.targetsOf(a);
    const dnf = ['dnf', 'dnf5'].includes(this.yum());
    const current = await this.holds(!dnf);
    const ret: Record<string, HoldEntry> = {};
    for (const target of targets) {
      const entry: HoldEntry = { name: target, changes: {}, result: false, comment: '' };
      ret[target] = entry;
      // yum lists full entries (0:name-version-release.*): pick those of this package.
      const locks = dnf
        ? current.filter((x) => x === target)
        : current.filter((x) => fnmatch(`*${target}*`, x) && parseVersionlock(x, 'yum', false)[0] === target);
      if (locks.length === 0) {
        entry.result = true;
        entry.comment = `Package ${target} is not being held.`;
      } else if ((await this.call(['versionlock', 'delete', ...locks])).retcode === 0) {
        entry.result = true;
        entry.comment = `Package ${target} is no longer held.`;
        entry.changes = { new: '', old: 'hold' };
      } else entry.comment = `Package ${target} was unable to be unheld.`;
    }
    return ret;
  }
}
