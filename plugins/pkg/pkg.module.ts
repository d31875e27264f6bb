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
import {
  compareDicts,
  parseDpkgQuery,
  parseJustPrint,
  parseRepoVersions,
  parsePolicy,
  parseSelections,
  parseUpdate,
  stringify,
  type PkgVersions,
} from './apt-parse';
import { noBackend } from './pkg-backends';
import { pkgTargets, saltenvOf, sourcePaths } from './pkg-args';

/** Salt's DPKG_ENV_VARS and module environment: apt never asks a question of a minion. */
const APT_ENV = {
  APT_LISTBUGS_FRONTEND: 'none',
  APT_LISTCHANGES_FRONTEND: 'none',
  DEBIAN_FRONTEND: 'noninteractive',
  UCF_FORCE_CONFFOLD: '1',
};

const TARGETS = { name: arg.string({ optional: true }), pkgs: arg.list({ optional: true }) };

type Changes = Record<string, { old: string; new: string }>;

/**
 * Salt's `pkg` on Debian and Ubuntu (aptpkg): dpkg-query, apt-cache and apt-get, with Salt's
 * return shapes ({name: {old, new}} for changes). The RHEL family and Alpine get their own `pkg`
 * (dnf.module.ts, apk.module.ts); the grains pick one, as Salt's `__virtual__` does.
 */
@Module('pkg', {
  file: 'aptpkg',
  doc: 'Support for APT (Advanced Packaging Tool)',
  available: (grains) => grains.os_family === 'Debian' || noBackend(grains),
})
export class PkgModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(ISalt) private readonly salt: ISalt,
  ) {}

  /** Run apt/dpkg, waiting out another apt holding the dpkg lock as Salt does (a few retries). */
  private async apt(cmd: string[], stdin?: string): Promise<ShellResult> {
    let res = await this.shell.run(cmd, { env: APT_ENV, stdin, pythonShell: false });
    for (let i = 1; i <= 5 && res.stderr.includes('Could not get lock'); i++) {
      // The retry must wait for the other apt: a short, growing pause is what Salt does too.
      await new Promise((r) => setTimeout(r, 500 * 2 ** i));
      res = await this.shell.run(cmd, { env: APT_ENV, stdin, pythonShell: false });
    }
    return res;
  }

  private async lists(): Promise<ReturnType<typeof parseDpkgQuery>> {
    const res = await this.shell.run(['dpkg-query', '--showformat', '${Status} ${Package} ${Version} ${Architecture}\n', '-W'], {
      pythonShell: false,
    });
    return parseDpkgQuery(res.stdout, { cpuarch: this.grains.get('cpuarch'), osarch: this.grains.get('osarch') });
  }

  private async installed(): Promise<Record<string, string>> {
    return stringify((await this.lists()).installed);
  }

  @Fn({
    summary: 'List the installed packages as {name: version}',
    description:
      'versions_as_list=True gives lists of versions; removed=True lists removed packages not purged; purge_desired=True those marked for purge.',
    examples: ["salt '*' pkg.list_pkgs", "salt '*' pkg.list_pkgs versions_as_list=True"],
    args: {
      versions_as_list: arg.boolean({ default: false }),
      removed: arg.boolean({ default: false }),
      purge_desired: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async list_pkgs(a: { versions_as_list: boolean; removed: boolean; purge_desired: boolean }): Promise<Record<string, string | string[]>> {
    const lists = await this.lists();
    let ret: PkgVersions;
    if (a.removed) ret = lists.removed;
    else ret = a.purge_desired ? { ...lists.purge_desired } : { ...lists.purge_desired, ...lists.installed };
    return a.versions_as_list ? ret : stringify(ret);
  }

  @Fn({
    summary: "The installed version of packages: a string for one name ('' when not installed), a dict for several or a glob",
    examples: ["salt '*' pkg.version bash", "salt '*' pkg.version bash coreutils", "salt '*' pkg.version 'lib*'"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async version({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<unknown> {
    const asList = isTrue(kwargs.versions_as_list ?? false);
    const ret: Record<string, string[]> = {};
    let glob = false;
    if (names.length > 0) {
      const pkgs = (await this.lists()).installed;
      for (const n of names.map(String)) {
        if (n.includes('*')) {
          glob = true;
          for (const match of Object.keys(pkgs).filter((p) => fnmatch(n, p))) ret[match] = pkgs[match];
        } else ret[n] = pkgs[n] ?? [];
      }
    }
    const out = asList ? ret : stringify(ret);
    const values = Object.values(out);
    return values.length === 1 && !glob ? values[0] : out;
  }

  @Fn({
    summary: "The version that would be installed or upgraded to: '' when the installed one is the newest",
    description:
      'refresh=True (the default) runs apt-get update first; show_installed=True gives the candidate even when installed; fromrepo picks a release.',
    examples: ["salt '*' pkg.latest_version bash", "salt '*' pkg.latest_version bash refresh=False"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async latest_version({ names, kwargs }: { names: unknown[]; kwargs: Record<string, unknown> }): Promise<unknown> {
    if ('repo' in kwargs) throw new InvocationError("The 'repo' argument is invalid, use 'fromrepo' instead");
    const list = names.map(String);
    if (list.length === 0) return '';
    const refresh = isTrue(kwargs.refresh ?? true);
    const showInstalled = isTrue(kwargs.show_installed ?? false);
    const pkgs = (await this.lists()).installed;
    if (refresh) await this.refresh_db({ failhard: false });
    const cmd = ['apt-cache', '-q', 'policy', ...list];
    if (kwargs.fromrepo) cmd.push('-o', `APT::Default-Release=${String(kwargs.fromrepo)}`);
    const candidates = parsePolicy((await this.apt(cmd)).stdout, list);
    const ret: Record<string, string> = {};
    for (const name of list) {
      const installed = pkgs[name] ?? [];
      const candidate = candidates[name] ?? '';
      ret[name] = '';
      if (installed.length === 0 || showInstalled) ret[name] = candidate;
      else if (candidate) {
        let newer = true;
        for (const v of installed) if ((await this.compare(v, candidate)) >= 0) newer = false;
        if (newer) ret[name] = candidate;
      }
    }
    return list.length === 1 ? ret[list[0]] : ret;
  }

  @Fn({
    summary: 'The versions the repositories offer: {name: [versions]} (apt-cache show NAMES, or apt-cache dump for all)',
    examples: ["salt '*' pkg.list_repo_pkgs bash", "salt '*' pkg.list_repo_pkgs 'bash=5.2.15-2+b8'"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  async list_repo_pkgs({ names }: { names: unknown[] }): Promise<Record<string, string[]>> {
    const cmd = names.length > 0 ? ['apt-cache', 'show', ...names.map(String)] : ['apt-cache', 'dump'];
    return parseRepoVersions((await this.apt(cmd)).stdout);
  }

  /** dpkg's own version order: -1, 0 or 1. */
  private async compare(a: string, b: string): Promise<number> {
    for (const [oper, ret] of [
      ['lt', -1],
      ['eq', 0],
      ['gt', 1],
    ] as const) {
      if ((await this.shell.run(['dpkg', '--compare-versions', a, oper, b], { pythonShell: false })).retcode === 0) return ret;
    }
    throw new CommandExecutionError(`dpkg could not compare versions '${a}' and '${b}'`);
  }

  @Fn({
    summary: 'Compare two versions as dpkg does: -1, 0 or 1',
    examples: ["salt '*' pkg.version_cmp '0.2.4-0ubuntu1' '0.2.4.1-0ubuntu1'"],
    args: { pkg1: arg.string(), pkg2: arg.string(), ignore_epoch: arg.boolean({ default: false }) },
    kwargs: true,
  })
  async version_cmp({ pkg1, pkg2, ignore_epoch }: { pkg1: string; pkg2: string; ignore_epoch: boolean }): Promise<number> {
    const norm = (v: string): string => (ignore_epoch ? v.split(':').slice(-1)[0] : v);
    return this.compare(norm(pkg1), norm(pkg2));
  }

  @Fn({
    summary: 'Update the APT database (apt-get update): {repository: True fetched, None unchanged, False ignored/failed}',
    examples: ["salt '*' pkg.refresh_db"],
    args: { cache_valid_time: arg.integer({ default: 0 }), failhard: arg.boolean({ default: false }) },
    kwargs: true,
  })
  async refresh_db({ failhard }: { failhard: boolean }): Promise<Record<string, boolean | null>> {
    const res = await this.apt(['apt-get', '-q', 'update']);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr);
    const { repos, errors } = parseUpdate(res.stdout);
    if (failhard && errors.length > 0) throw new CommandExecutionError(`Error getting repos: ${errors.join(', ')}`);
    return repos;
  }

  @Fn({
    summary: 'Install packages: name (version=...), pkgs (names or {name: version}), or sources (.deb files: local paths or salt://)',
    description: 'Returns {name: {old, new}} for every package that changed. refresh=True updates the database first.',
    examples: [
      "salt '*' pkg.install vim",
      "salt '*' pkg.install vim version=2:9.0.1378-2",
      `salt '*' pkg.install pkgs='["foo", {"bar": "1.2.3-4"}]'`,
      `salt '*' pkg.install sources='[{"foo": "/tmp/foo_1.0_all.deb"}]'`,
      `salt '*' pkg.install sources='[{"foo": "salt://pkgs/foo_1.0_all.deb"}]'`,
    ],
    args: {
      ...TARGETS,
      refresh: arg.boolean({ default: false }),
      fromrepo: arg.string({ optional: true }),
      skip_verify: arg.boolean({ default: false }),
      sources: arg.list({ optional: true }),
      reinstall: arg.boolean({ default: false }),
      version: arg.any({ optional: true }),
    },
    kwargs: true,
  })
  async install(a: {
    name?: string;
    pkgs?: unknown[];
    refresh: boolean;
    fromrepo?: string;
    skip_verify: boolean;
    sources?: unknown[];
    reinstall: boolean;
    version?: unknown;
    kwargs: Record<string, unknown>;
  }): Promise<Changes> {
    const old = await this.installed();
    const targets: string[] = [];
    const reinstall: string[] = [];
    if (a.sources && a.sources.length > 0) {
      for (const [, path] of await sourcePaths(this.salt, a.sources, saltenvOf(a.kwargs))) targets.push(path);
    } else {
      const wanted = pkgTargets(a.name, a.pkgs, a.version);
      if (Object.keys(wanted).length === 0) return {};
      for (const [name, version] of Object.entries(wanted)) {
        const pkgstr = version ? `${name}=${version.replace(/^=/, '')}` : name;
        if (a.reinstall && old[name] && (!version || old[name] === version)) reinstall.push(pkgstr);
        else targets.push(pkgstr);
      }
    }
    if (a.refresh) await this.refresh_db({ failhard: false });
    const prefix = ['apt-get', '-q', '-y', '-o', 'DPkg::Options::=--force-confold', '-o', 'DPkg::Options::=--force-confdef'];
    if (a.skip_verify) prefix.push('--allow-unauthenticated');
    if (a.fromrepo) prefix.push('-t', a.fromrepo);
    // Salt's install leaves held packages held: they are released for the install only.
    const held = (
      parseSelections((await this.shell.run(['dpkg', '--get-selections', '*'], { pythonShell: false })).stdout).hold ?? []
    ).filter((p) => [...targets, ...reinstall].some((t) => t.split('=')[0] === p));
    if (held.length > 0) await this.setSelections('install', held);
    const errors: string[] = [];
    // A downgrade needs --allow-downgrades; Salt passes --force-yes, its older spelling.
    const cmds = [
      targets.length > 0 ? [...prefix, '--allow-downgrades', 'install', ...targets] : null,
      reinstall.length > 0 ? [...prefix, 'install', '--reinstall', ...reinstall] : null,
    ];
    for (const cmd of cmds) {
      if (!cmd) continue;
      const res = await this.apt(cmd);
      if (res.retcode !== 0 && res.stderr) errors.push(res.stderr.trim());
    }
    if (held.length > 0) await this.setSelections('hold', held);
    const changes = compareDicts(old, await this.installed());
    for (const r of reinstall) {
      const n = r.split('=')[0];
      changes[n] ??= { old: old[n] ?? '', new: old[n] ?? '' };
    }
    if (errors.length > 0) throw new CommandExecutionError(`Problem encountered installing package(s): ${errors.join('\n')}`);
    return changes;
  }

  private async uninstall(action: 'remove' | 'purge', name: string | undefined, pkgs: unknown[] | undefined): Promise<unknown> {
    const wanted = Object.keys(pkgTargets(name, pkgs, undefined));
    const lists = await this.lists();
    const old = stringify(lists.installed);
    const oldRemoved = stringify(lists.removed);
    const match = (have: Record<string, string>): string[] => Object.keys(have).filter((p) => wanted.some((w) => fnmatch(w, p)));
    const targets = match(old);
    if (action === 'purge') targets.push(...match(oldRemoved));
    if (targets.length === 0) return {};
    const res = await this.apt(['apt-get', '-q', '-y', action, ...targets]);
    const after = await this.lists();
    const changes = compareDicts(old, stringify(after.installed));
    const ret = action === 'purge' ? { removed: compareDicts(oldRemoved, stringify(after.removed)), installed: changes } : changes;
    if (res.retcode !== 0 && res.stderr) throw new CommandExecutionError(`Problem encountered removing package(s): ${res.stderr.trim()}`);
    return ret;
  }

  @Fn({
    summary: 'Remove packages (configuration files stay): {name: {old, new}}',
    examples: ["salt '*' pkg.remove vim", `salt '*' pkg.remove pkgs='["foo", "bar"]'`],
    args: TARGETS,
    kwargs: true,
  })
  remove({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<unknown> {
    return this.uninstall('remove', name, pkgs);
  }

  @Fn({
    summary: 'Remove packages and their configuration files: {removed: {...}, installed: {...}}',
    examples: ["salt '*' pkg.purge vim"],
    args: TARGETS,
    kwargs: true,
  })
  purge({ name, pkgs }: { name?: string; pkgs?: unknown[] }): Promise<unknown> {
    return this.uninstall('purge', name, pkgs);
  }

  @Fn({
    summary: 'Upgrade every package (apt-get upgrade, or dist-upgrade): {name: {old, new}}',
    examples: ["salt '*' pkg.upgrade", "salt '*' pkg.upgrade dist_upgrade=True"],
    args: { refresh: arg.boolean({ default: true }), dist_upgrade: arg.boolean({ default: false }) },
    kwargs: true,
  })
  async upgrade({
    refresh,
    dist_upgrade,
    kwargs,
  }: {
    refresh: boolean;
    dist_upgrade: boolean;
    kwargs: Record<string, unknown>;
  }): Promise<Changes> {
    if (refresh) await this.refresh_db({ failhard: false });
    const old = await this.installed();
    const cmd = ['apt-get', '-q', '-y', '-o', 'DPkg::Options::=--force-confold', '-o', 'DPkg::Options::=--force-confdef'];
    if (isTrue(kwargs.skip_verify ?? false)) cmd.push('--allow-unauthenticated');
    if (isTrue(kwargs.download_only ?? kwargs.downloadonly ?? false)) cmd.push('--download-only');
    cmd.push(dist_upgrade ? 'dist-upgrade' : 'upgrade');
    const res = await this.apt(cmd);
    const changes = compareDicts(old, await this.installed());
    if (res.retcode !== 0) throw new CommandExecutionError(`Problem encountered upgrading packages: ${res.stderr.trim()}`);
    return changes;
  }

  @Fn({
    summary: 'The packages an upgrade would change: {name: new version}',
    examples: ["salt '*' pkg.list_upgrades"],
    args: { refresh: arg.boolean({ default: true }), dist_upgrade: arg.boolean({ default: true }) },
    kwargs: true,
  })
  async list_upgrades({
    refresh,
    dist_upgrade,
    kwargs,
  }: {
    refresh: boolean;
    dist_upgrade: boolean;
    kwargs: Record<string, unknown>;
  }): Promise<Record<string, string>> {
    if (refresh) await this.refresh_db({ failhard: false });
    const cmd = ['apt-get', '--just-print', dist_upgrade ? 'dist-upgrade' : 'upgrade'];
    if (kwargs.fromrepo) cmd.push('-o', `APT::Default-Release=${String(kwargs.fromrepo)}`);
    const res = await this.apt(cmd);
    if (res.retcode !== 0) throw new CommandExecutionError(`Failed to get upgrades: ${res.stderr || res.stdout}`);
    return parseJustPrint(res.stdout);
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
    summary: "dpkg's selections: {state: [packages]} (install, hold, deinstall, purge)",
    examples: ["salt '*' pkg.get_selections", "salt '*' pkg.get_selections 'python-*' state=hold"],
    args: { pattern: arg.string({ optional: true }), state: arg.string({ optional: true }) },
  })
  async get_selections({ pattern, state }: { pattern?: string; state?: string }): Promise<Record<string, string[]>> {
    const ret = parseSelections((await this.shell.run(['dpkg', '--get-selections', pattern || '*'], { pythonShell: false })).stdout);
    return state ? { [state]: ret[state] ?? [] } : ret;
  }

  private async setSelections(state: string, pkgs: string[]): Promise<Record<string, { old: string | null; new: string }>> {
    const current: Record<string, string> = {};
    for (const [s, list] of Object.entries(await this.get_selections({}))) for (const p of list) current[p] = s;
    const ret: Record<string, { old: string | null; new: string }> = {};
    for (const p of pkgs) {
      if (current[p] === state) continue;
      const res = await this.apt(['dpkg', '--set-selections'], `${p} ${state}`);
      if (res.retcode === 0) ret[p] = { old: current[p] ?? null, new: state };
    }
    return ret;
  }

  private async holdOrUnhold(hold: boolean, a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): Promise<Record<string, unknown>> {
    if (!a.name && !a.pkgs && !a.sources) throw new InvocationError('One of name, pkgs, or sources must be specified.');
    if (a.pkgs && a.sources) throw new InvocationError('Only one of pkgs or sources can be specified.');
    const raw: unknown[] = a.pkgs ?? a.sources ?? [a.name];
    const ret: Record<string, unknown> = {};
    for (const t of raw) {
      const target = typeof t === 'object' && t !== null ? Object.keys(t)[0] : String(t);
      const entry = { name: target, changes: {} as unknown, result: false, comment: '' };
      ret[target] = entry;
      const state = await this.get_selections({ pattern: target });
      const isHeld = (state.hold ?? []).length > 0;
      // Salt asks only unhold whether the package has a selection at all.
      if (!hold && Object.keys(state).length === 0) entry.comment = `Package ${target} does not have a state.`;
      else if (hold !== isHeld) {
        const changed = await this.setSelections(hold ? 'hold' : 'install', [target]);
        entry.changes = changed[target] ?? {};
        entry.result = true;
        entry.comment = hold ? `Package ${target} is now being held.` : `Package ${target} is no longer being held.`;
      } else {
        entry.result = true;
        entry.comment = hold ? `Package ${target} is already set to be held.` : `Package ${target} is already set not to be held.`;
      }
    }
    return ret;
  }

  @Fn({
    summary: 'Hold packages at their version (dpkg selection hold)',
    examples: ["salt '*' pkg.hold vim", `salt '*' pkg.hold pkgs='["foo", "bar"]'`],
    args: { ...TARGETS, sources: arg.list({ optional: true }) },
    kwargs: true,
  })
  hold(a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): Promise<Record<string, unknown>> {
    return this.holdOrUnhold(true, a);
  }

  @Fn({
    summary: 'Release held packages (dpkg selection install)',
    examples: ["salt '*' pkg.unhold vim"],
    args: { ...TARGETS, sources: arg.list({ optional: true }) },
    kwargs: true,
  })
  unhold(a: { name?: string; pkgs?: unknown[]; sources?: unknown[] }): Promise<Record<string, unknown>> {
    return this.holdOrUnhold(false, a);
  }
}
