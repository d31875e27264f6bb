/**
 * What the pkg states ask the `pkg` execution module (whichever backend this host has: apt, dnf/yum
 * or apk), in Salt's words: installed versions, version conditions, and which of the wanted
 * packages an install would touch (Salt's `_find_install_targets` / `_find_remove_targets`).
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { CommandExecutionError, fnmatch, InvocationError, type ISalt, type StateReturn } from 'brine/plugin';
import { CMP_MAP, ignoreEpochFor, packSources, parseVersionConditions, repackPkgs, type Desired } from './pkg-targets';
import { hasFileProto } from './pkg-args';

/** What `pkg.verify` found altered in each package: {path: {mismatch, type} or {missing, type}}. */
export type AlteredFiles = Record<string, Record<string, unknown>>;

/** Installed packages as `pkg.list_pkgs versions_as_list=True` gives them. */
export type Installed = Record<string, string[]>;

export interface InstallTargets {
  desired: Desired;
  targets: Desired;
  toUnpurge: string[];
  toReinstall: Desired;
  /** The packages `pkg_verify` sends to be reinstalled, and what pkg.verify found altered in each. */
  alteredFiles: AlteredFiles;
  warnings: string[];
  wasRefreshed: boolean;
}

export interface FindInstallOptions {
  name: string;
  version: string | null;
  pkgs?: unknown[];
  sources?: unknown[];
  skipSuggestions: boolean;
  normalize: boolean;
  ignoreEpoch?: boolean;
  reinstall: boolean;
  refresh: boolean;
  allowUpdates: boolean;
  fromrepo?: string;
  /** `pkg_verify`: check installed packages with pkg.verify and reinstall those with altered files. */
  pkgVerify: boolean;
  /** What pkg.verify is called with besides the name: ignore_types, verify_options and the state's other arguments. */
  verifyKwargs: Record<string, unknown>;
  /** A `sources` entry as a local file (the state run's cp.cache_file), null when there is none. */
  cacheFile(source: string): Promise<string | null>;
  kwargs: Record<string, unknown>;
}

const done = (name: string, result: boolean, comment: string): StateReturn => ({ name, changes: {}, result, comment });

export class PkgInventory {
  constructor(private readonly salt: ISalt) {}

  async listPkgs(extra: Record<string, unknown> = {}): Promise<Installed> {
    return (await this.salt.call('pkg.list_pkgs', [], { versions_as_list: true, ...extra })) as Installed;
  }

  /** `salt.utils.versions.compare` over the backend's `pkg.version_cmp`. */
  private async compare(ver: string, oper: string, desired: string, ignoreEpoch: boolean): Promise<boolean> {
    const allowed = oper === '!=' ? null : CMP_MAP[oper];
    if (oper !== '!=' && !allowed) return false;
    const res = await this.salt.call('pkg.version_cmp', [ver, desired], { ignore_epoch: ignoreEpoch });
    if (typeof res !== 'number' || !Number.isInteger(res)) return false;
    const cmp = Math.max(-1, Math.min(1, res));
    return allowed ? allowed.includes(cmp) : cmp !== 0;
  }

  /** Salt's `_fulfills_version_spec`: one installed version meets `oper desired` ('==' also as a glob). */
  private async fulfillsSpec(versions: string[], oper: string, desired: string, ignoreEpoch?: boolean): Promise<boolean> {
    for (const ver of versions) {
      if (oper === '==' && fnmatch(desired, ver)) return true;
      if (await this.compare(ver, oper, desired, ignoreEpochFor(oper, desired, ignoreEpoch))) return true;
    }
    return false;
  }

  /** Salt's `_fulfills_version_string`: an installed version meets every condition of '>=1.2, <2'. */
  async fulfills(installed: string[], conditions: string, ignoreEpoch?: boolean, allowUpdates = false): Promise<boolean> {
    const parsed = parseVersionConditions(conditions);
    for (const v of installed) {
      let all = true;
      for (const [op, ver] of parsed) {
        const oper = allowUpdates && parsed.length === 1 && op === '==' ? '>=' : op;
        all = all && (await this.fulfillsSpec([v], oper, ver, ignoreEpoch));
      }
      if (all) return true;
    }
    return false;
  }

  /** Salt's `_find_unpurge_targets`: wanted packages dpkg marked for purge (apt only; others list none). */
  private async unpurgeTargets(desired: Desired): Promise<string[]> {
    const marked = await this.listPkgs({ purge_desired: true });
    return Object.keys(desired).filter((x) => x in marked);
  }

  /** Salt's `_find_install_targets`: a finished state return, or what pkg.installed must do. */
  async findInstallTargets(o: FindInstallOptions): Promise<StateReturn | InstallTargets> {
    const { name } = o;
    if (o.pkgs && o.sources) return done(name, false, 'Only one of "pkgs" and "sources" is permitted.');
    let cur: Installed;
    try {
      cur = await this.listPkgs();
    } catch (err) {
      if (err instanceof CommandExecutionError) return done(name, false, err.message);
      throw err;
    }
    let desired: Desired;
    let toUnpurge: string[];
    if (o.pkgs || o.sources) {
      const packed = o.pkgs ? repackPkgs(o.pkgs) : packSources(o.sources);
      if (!packed || Object.keys(packed).length === 0)
        return done(name, false, `Invalidly formatted '${o.pkgs ? 'pkgs' : 'sources'}' parameter. See minion log.`);
      desired = packed;
      toUnpurge = await this.unpurgeTargets(desired);
    } else {
      desired = { [name]: o.version };
      toUnpurge = await this.unpurgeTargets(desired);
      const cver = cur[name] ?? [];
      if (!toUnpurge.includes(name)) {
        if (o.version && cver.includes(o.version) && !o.reinstall && !o.pkgVerify)
          return done(name, true, `Version ${o.version} of package '${name}' is already installed`);
        if (cver.length > 0 && o.version === null && !o.reinstall && !o.pkgVerify)
          return done(name, true, `Package ${name} is already installed`);
      }
    }

    // Salt's pre-flight check asks pkg.check_db for alternative names; only backends that have it.
    if (!o.sources && !o.skipSuggestions && this.salt.has('pkg.check_db')) {
      const notInstalled: string[] = [];
      for (const [n, v] of Object.entries(desired))
        if (!(n in cur && (v === null || (await this.fulfills(cur[n], v, o.ignoreEpoch))))) notInstalled.push(n);
      if (notInstalled.length > 0) {
        const problem = await this.preflight(notInstalled, o.fromrepo);
        if (problem) return done(name, false, problem);
      }
    }

    let refresh = o.refresh;
    let wasRefreshed = false;
    const wantsLatest = o.sources ? [] : Object.keys(desired).filter((k) => desired[k] === 'latest');
    if (wantsLatest.length > 0) {
      let resolved = (await this.salt.call('pkg.latest_version', wantsLatest, { refresh })) as unknown;
      if (wantsLatest.length === 1) resolved = { [wantsLatest[0]]: resolved };
      if (refresh) {
        wasRefreshed = true;
        refresh = false;
      }
      for (const [k, v] of Object.entries(resolved as Record<string, string>))
        desired[k] = v ? v : cur[k] ? cur[k][cur[k].length - 1] : null;
    }

    const targets: Desired = {};
    const toReinstall: Desired = {};
    const alteredFiles: AlteredFiles = {};
    const problems: string[] = [];
    let failedVerify: string | null = null;
    // Salt's pkg_verify: an installed package whose files pkg.verify finds altered is reinstalled.
    const verify = async (pkg: string, wanted: string | null): Promise<void> => {
      let altered: AlteredFiles[string];
      try {
        altered = (await this.salt.call('pkg.verify', [pkg], o.verifyKwargs)) as AlteredFiles[string];
      } catch (err) {
        if (!(err instanceof CommandExecutionError || err instanceof InvocationError)) throw err;
        failedVerify = err.message;
        return;
      }
      if (Object.keys(altered).length > 0) {
        toReinstall[pkg] = wanted;
        alteredFiles[pkg] = altered;
      }
    };
    let versionSpec = false;
    for (const [pkg, wanted] of Object.entries(desired)) {
      const cver = cur[pkg] ?? [];
      if (cver.length === 0) {
        targets[pkg] = wanted;
        continue;
      }
      let verstr: string;
      if (o.sources) {
        if (o.reinstall) {
          toReinstall[pkg] = wanted;
          continue;
        }
        // The package file's own version, where the backend can read it (Salt's lowpkg.bin_pkg_info).
        if (!this.salt.has('lowpkg.bin_pkg_info') || wanted === null) continue;
        const found = await this.sourceVersion(wanted, o.cacheFile);
        if ('problem' in found) {
          problems.push(found.problem);
          continue;
        }
        verstr = found.version;
      } else {
        if (o.reinstall) {
          toReinstall[pkg] = wanted;
          continue;
        }
        if (wanted === null) {
          if (o.pkgVerify) await verify(pkg, wanted);
          continue;
        }
        verstr = wanted;
      }
      let fulfilled: boolean;
      try {
        fulfilled = await this.fulfills(cver, verstr, o.ignoreEpoch, !o.sources && o.allowUpdates);
      } catch (err) {
        if (!(err instanceof CommandExecutionError)) throw err;
        problems.push(err.message);
        continue;
      }
      versionSpec = true;
      if (fulfilled) continue;
      // As Salt 3007 does: with pkg_verify, a package whose exact (==) version is not the installed
      // one is verified (and reinstalled if altered), not installed at that version.
      if (o.pkgVerify && parseVersionConditions(wanted).some(([oper]) => oper === '==')) await verify(pkg, wanted);
      else targets[pkg] = wanted;
    }
    if (failedVerify !== null) problems.push(failedVerify);
    if (problems.length > 0) return done(name, false, problems.join(' '));
    if (Object.keys(targets).length === 0 && toUnpurge.length === 0 && Object.keys(toReinstall).length === 0) {
      const spec = versionSpec && !o.sources ? ' and are at the desired version' : '';
      return done(name, true, `All specified packages are already installed${spec}`);
    }
    return { desired, targets, toUnpurge, toReinstall, alteredFiles, warnings: [], wasRefreshed };
  }

  /** A `sources` entry's package version (Salt's cp.cache_file, then lowpkg.bin_pkg_info), or the problem to report. */
  private async sourceVersion(
    source: string,
    cacheFile: (source: string) => Promise<string | null>,
  ): Promise<{ version: string } | { problem: string }> {
    let cached: string | null;
    try {
      // Salt's cp.cache_file answers a local path as it is, there or not.
      cached = !hasFileProto(source) && isAbsolute(source) ? source : await cacheFile(source);
    } catch (err) {
      if (!(err instanceof CommandExecutionError || err instanceof InvocationError)) throw err;
      return { problem: `Unable to cache ${source}: ${err.message}` };
    }
    if (!cached) return { problem: `Unable to cache ${source}: file not found` };
    if (!existsSync(cached)) return { problem: `${source} does not exist on minion` };
    const info = (await this.salt.call('lowpkg.bin_pkg_info', [cached])) as { version: string };
    return { version: info.version };
  }

  /** Salt's `_preflight_check` over `pkg.check_db`: the comment refusing unknown names, or null. */
  private async preflight(names: string[], fromrepo?: string): Promise<string | null> {
    let info: Record<string, { found: boolean; suggestions: string[] }>;
    try {
      info = (await this.salt.call('pkg.check_db', names, { fromrepo })) as typeof info;
    } catch (err) {
      if (err instanceof CommandExecutionError) return null;
      throw err;
    }
    const noSuggest = Object.keys(info).filter((n) => !info[n].found && info[n].suggestions.length === 0);
    const comments: string[] = [];
    if (noSuggest.length > 0)
      comments.push(
        `The following package(s) were not found, and no possible matches were found in the package db: ${noSuggest.sort().join(', ')}`,
      );
    for (const [n, i] of Object.entries(info))
      if (!i.found && i.suggestions.length > 0) comments.push(`Package '${n}' not found (possible matches: ${i.suggestions.join(', ')})`);
    if (comments.length === 0) return null;
    if (comments.length > 1) comments.push('');
    return comments.join('. ').trimEnd();
  }

  /**
   * Salt's `_get_installable_versions` (3007): what test mode predicts, {name: {new, old}}; `new` is
   * the candidate version, or 'installed' when the backend knows none.
   */
  async installableVersions(targets: Desired, current: Record<string, string> = {}): Promise<Record<string, { new: string; old: string }>> {
    const latestTargets = Object.keys(targets).filter((k) => !targets[k]);
    const installable: Record<string, string> = {};
    if (latestTargets.length > 0) {
      const latest = await this.salt.call('pkg.latest_version', latestTargets);
      if (typeof latest === 'string') installable[latestTargets[0]] = latest;
      else Object.assign(installable, latest as Record<string, string>);
    }
    const explicit = Object.keys(targets).filter((k) => !latestTargets.includes(k));
    if (explicit.length > 0 && this.salt.has('pkg.list_repo_pkgs')) {
      const repo = (await this.salt.call(
        'pkg.list_repo_pkgs',
        explicit.map((k) => `${k}=${targets[k]}`),
      )) as Record<string, string[]>;
      for (const [k, list] of Object.entries(repo)) if (list.length > 0) installable[k] = list[0];
    }
    const ret: Record<string, { new: string; old: string }> = {};
    for (const x of Object.keys(targets)) ret[x] = { new: installable[x] || 'installed', old: current[x] ?? '' };
    return ret;
  }

  /** Salt's `_find_remove_targets`: a finished state return, or the installed packages to remove. */
  async findRemoveTargets(
    name: string,
    version: string | null,
    pkgs: unknown[] | undefined,
    ignoreEpoch?: boolean,
  ): Promise<StateReturn | string[]> {
    const cur = await this.listPkgs();
    let toRemove: Desired;
    if (pkgs) {
      const packed = repackPkgs(pkgs);
      if (!packed || Object.keys(packed).length === 0) return done(name, false, 'Invalidly formatted pkgs parameter. See minion log.');
      toRemove = packed;
    } else toRemove = { [name]: version };
    const targets: string[] = [];
    let versionSpec = false;
    for (const [pkg, ver] of Object.entries(toRemove)) {
      const cver = cur[pkg] ?? [];
      if (cver.length === 0) continue;
      if (ver === null) {
        targets.push(pkg);
        continue;
      }
      versionSpec = true;
      if (await this.fulfills(cver, ver, ignoreEpoch)) targets.push(pkg);
    }
    if (targets.length === 0)
      return done(name, true, `All specified packages${versionSpec ? ' (matching specified versions)' : ''} are already absent`);
    return targets;
  }
}
