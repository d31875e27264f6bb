import {
  arg,
  CommandExecutionError,
  formatNested,
  inject,
  isDict,
  ISalt,
  isTrue,
  pyStr,
  State,
  StateModule,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';
import { PkgInventory } from './pkg-inventory';
import { PkgHolds, type HeldArgs, type HoldAnswer, type UnheldArgs } from './pkg-holds';
import { desiredPkg, repackPkgs, type Desired } from './pkg-targets';
import { PKG_FAMILIES } from './pkg-backends';

type Changes = Record<string, unknown>;

const TARGET_ARGS = {
  name: arg.string(),
  version: arg.any({ optional: true }),
  pkgs: arg.list({ optional: true }),
  normalize: arg.boolean({ default: true }),
  ignore_epoch: arg.any({ optional: true }),
};

const INSTALLED_ARGS = {
  ...TARGET_ARGS,
  refresh: arg.any({ optional: true }),
  fromrepo: arg.string({ optional: true }),
  skip_verify: arg.boolean({ default: false }),
  skip_suggestions: arg.boolean({ default: false }),
  sources: arg.list({ optional: true }),
  allow_updates: arg.boolean({ default: false }),
  pkg_verify: arg.any({ optional: true }),
  reinstall: arg.boolean({ default: false }),
  update_holds: arg.boolean({ default: false }),
};

interface Targets {
  name: string;
  version?: unknown;
  pkgs?: unknown[];
  normalize: boolean;
  ignore_epoch?: unknown;
  kwargs: Record<string, unknown>;
}

interface InstalledArgs extends Targets {
  refresh?: unknown;
  fromrepo?: string;
  skip_verify: boolean;
  skip_suggestions: boolean;
  sources?: unknown[];
  allow_updates: boolean;
  pkg_verify?: unknown;
  reinstall: boolean;
  update_holds: boolean;
}

const versionText = (v: unknown): string | null => (v === undefined || v === null || v === '' ? null : pyStr(v));
const epochChoice = (v: unknown): boolean | undefined => (v === undefined || v === null ? undefined : isTrue(v));
const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** `pkg_verify: [{ignore_types: [...]}, {verify_options: [...]}]`: the first entry naming `key`, as Salt reads it. */
function verifyOption(pkgVerify: unknown, key: string): unknown {
  if (!Array.isArray(pkgVerify)) return [];
  const entry = pkgVerify.find((x) => isDict(x) && x[key] !== undefined && x[key] !== null) as Record<string, unknown> | undefined;
  return entry ? entry[key] : [];
}

/**
 * Salt's `pkg` states (salt/states/pkg.py of 3007) over whichever `pkg` execution module this host
 * has (apt, dnf/yum, apk): installed, latest, removed, purged, held and unheld, with Salt's
 * comments, changes and test-mode predictions.
 */
@StateModule('pkg', {
  doc: 'Installation of packages using OS package managers such as apt-get, dnf/yum or apk',
  available: (grains) => PKG_FAMILIES.includes(String(grains.os_family)) || 'pkg module could not be loaded',
})
export class PkgStates {
  private readonly inv: PkgInventory;
  private readonly holds: PkgHolds;

  constructor(@inject(ISalt) private readonly salt: ISalt) {
    this.inv = new PkgInventory(salt);
    this.holds = new PkgHolds(salt);
  }

  @State({
    summary: 'Ensure that the package is installed, at the given version when one is named',
    description:
      'pkgs: a list of names or {name: version} maps; sources: [{name: package file}]; version: a version or conditions ' +
      "('>=1.2, <2'), 'latest'; refresh: update the package database first; reinstall; hold: True/False to hold or " +
      'release the packages; skip_suggestions; fromrepo; skip_verify; allow_updates; ignore_epoch; pkg_verify: True, or ' +
      '[{ignore_types: [...]}, {verify_options: [...]}], reinstalls installed packages whose files pkg.verify finds altered.',
    examples: ['vim:\n  pkg.installed', 'tools:\n  pkg.installed:\n    - pkgs:\n      - curl\n      - jq: 1.6-2.1'],
    args: INSTALLED_ARGS,
    kwargs: true,
  })
  async installed(a: InstalledArgs, ctx: StateContext): Promise<StateReturn> {
    const { name } = a;
    if (Array.isArray(a.pkgs) && a.pkgs.length === 0)
      return { name, changes: {}, result: true, comment: 'No packages to install provided' };
    let pkgs = a.pkgs;
    let version = versionText(a.version);
    // A lone name (and version) is packed into pkgs, as Salt does.
    if (name && !pkgs && !a.sources) {
      pkgs = version ? [{ [name]: version }] : [name];
      version = null;
    }
    let refresh = isTrue(a.refresh ?? false);
    // Salt: a list asks for pkg.verify (with its options), else only True itself does; an empty list
    // needs pkg.verify but verifies nothing.
    const verifyAsked = Array.isArray(a.pkg_verify) || a.pkg_verify === true;
    if (verifyAsked && !this.salt.has('pkg.verify')) return { name, changes: {}, result: false, comment: 'pkg.verify not implemented' };
    const pkgVerify = Array.isArray(a.pkg_verify) ? a.pkg_verify.length > 0 : verifyAsked;
    const kwargs = { ...a.kwargs };
    const holdWanted = 'hold' in kwargs ? isTrue(kwargs.hold) : undefined;
    delete kwargs.hold;
    const ignoreEpoch = epochChoice(a.ignore_epoch);
    const verifyKwargs = {
      ...kwargs,
      ignore_types: verifyOption(a.pkg_verify, 'ignore_types'),
      verify_options: verifyOption(a.pkg_verify, 'verify_options'),
    };

    const found = await this.inv.findInstallTargets({
      name,
      version,
      pkgs,
      sources: a.sources,
      skipSuggestions: a.skip_suggestions,
      normalize: a.normalize,
      ignoreEpoch,
      reinstall: a.reinstall,
      refresh,
      allowUpdates: a.allow_updates,
      fromrepo: a.fromrepo,
      pkgVerify,
      verifyKwargs,
      cacheFile: async (source) =>
        ctx.cacheFile ? ctx.cacheFile(source) : ((await this.salt.call('cp.cache_file', [source])) as string | false) || null,
      kwargs,
    });
    if ('result' in found) {
      if (holdWanted === undefined || !this.salt.has('pkg.hold')) return found;
      return this.holds.afterInstall(found, holdWanted, name, pkgs, a.sources);
    }
    const { desired, targets, toUnpurge, toReinstall, alteredFiles, warnings } = found;
    if (found.wasRefreshed) refresh = false;
    const withWarnings = (ret: StateReturn): StateReturn => (warnings.length > 0 ? { ...ret, warnings } : ret);
    if (toUnpurge.length > 0 && !this.salt.has('lowpkg.unpurge'))
      return withWarnings({ name, changes: {}, result: false, comment: 'lowpkg.unpurge not implemented' });

    // Only what _find_install_targets kept goes to pkg.install.
    let sources = a.sources;
    if (pkgs) pkgs = [...Object.entries(targets), ...Object.entries(toReinstall)].map(([k, v]) => ({ [k]: v }));
    else if (sources) {
      const keyOf = (s: unknown): string => Object.keys(s as object)[0];
      sources = [...sources.filter((s) => keyOf(s) in targets), ...sources.filter((s) => keyOf(s) in toReinstall)];
    }

    const comment: string[] = [];
    const changes: Changes = {};
    if (ctx.test) {
      if (Object.keys(targets).length > 0) {
        const predicted = sources
          ? Object.fromEntries(Object.keys(targets).map((x) => [x, { new: 'installed', old: '' }]))
          : await this.inv.installableVersions(targets);
        Object.assign(changes, predicted);
        comment.push(`The following packages would be installed/updated: ${Object.keys(targets).join(', ')}`);
      }
      if (toUnpurge.length > 0) {
        comment.push(`The following packages would have their selection status changed from 'purge' to 'install': ${toUnpurge.join(', ')}`);
        for (const x of toUnpurge) changes[x] = { new: 'installed', old: '' };
      }
      if (Object.keys(toReinstall).length > 0 && a.reinstall) {
        const names = Object.keys(toReinstall).map((p) => (sources ? p : desiredPkg(p, toReinstall)));
        for (const x of names) changes[x] = { new: 'installed', old: '' };
        comment.push(`The following packages would be reinstalled: ${names.join(', ')}`);
      } else {
        // pkg_verify's reinstalls, each with the files pkg.verify found altered.
        for (const p of Object.keys(toReinstall)) {
          const pkgstr = sources ? p : desiredPkg(p, toReinstall);
          comment.push(`Package '${pkgstr}' would be reinstalled because the following files have been altered:`);
          changes[p] = {};
          comment.push(formatNested(alteredFiles[p]));
        }
      }
      return withWarnings({ name, changes, result: null, comment: comment.join('\n') });
    }

    let pkgRet: Changes = {};
    if (Object.keys(targets).length > 0 || Object.keys(toReinstall).length > 0) {
      try {
        pkgRet = (await this.salt.call('pkg.install', [], {
          ...kwargs,
          refresh,
          version: version ?? undefined,
          fromrepo: a.fromrepo,
          skip_verify: a.skip_verify,
          pkgs,
          sources,
          reinstall: Object.keys(toReinstall).length > 0,
        })) as Changes;
      } catch (err) {
        if (!(err instanceof CommandExecutionError)) throw err;
        const info = err.info as { changes?: Changes } | undefined;
        if (info?.changes) return withWarnings({ name, result: false, changes: info.changes, comment: err.message });
        return withWarnings({
          name,
          result: false,
          changes: {},
          comment: `An error was encountered while installing package(s): ${err.message}`,
        });
      }
      Object.assign(changes, pkgRet);
    }

    let holds: HoldAnswer | undefined;
    if (holdWanted !== undefined && this.salt.has('pkg.hold')) {
      try {
        holds = (await this.salt.call(holdWanted ? 'pkg.hold' : 'pkg.unhold', [], {
          name,
          pkgs: Object.entries(desired).map(([k, v]) => (v === null ? k : { [k]: v })),
        })) as HoldAnswer;
      } catch (err) {
        comment.push(errText(err));
        return withWarnings({ name, changes, result: false, comment: comment.join('\n') });
      }
    }

    // Packages marked for purge that this state wants kept: their selection goes back to install.
    if (toUnpurge.length > 0) changes.purge_desired = await this.salt.call('lowpkg.unpurge', toUnpurge);

    let modified: string[];
    let notModified: string[];
    let failed: string[];
    if (sources) {
      modified = Object.keys(changes).filter((x) => x in targets);
      notModified = Object.keys(desired).filter((x) => !(x in targets) && !(x in toReinstall));
      failed = Object.keys(targets).filter((x) => !modified.includes(x));
    } else {
      const after = await this.inv.listPkgs();
      const ok: string[] = [];
      const bad: string[] = [];
      for (const [pkg, ver] of Object.entries(desired)) {
        const cver = after[pkg.split('=')[0]] ?? [];
        if (cver.length === 0) bad.push(pkg);
        else if (!ver || ver === 'latest' || (ver.endsWith('*') && cver[0].startsWith(ver.slice(0, -1)))) ok.push(pkg);
        else if (await this.inv.fulfills(cver, ver, ignoreEpoch)) ok.push(pkg);
        else bad.push(pkg);
      }
      modified = ok.filter((x) => x in targets);
      notModified = ok.filter((x) => !(x in targets) && !(x in toReinstall));
      failed = bad.filter((x) => x in targets);
    }
    const label = (xs: string[]): string => (sources ? xs : xs.map((x) => desiredPkg(x, desired))).join(', ');
    if (modified.length > 0) {
      const summary = label(modified);
      const n = modified.length;
      comment.push(
        summary.length < 20
          ? `The following packages were installed/updated: ${summary}`
          : `${n} targeted package${n > 1 ? 's' : ''} ${n > 1 ? 'were' : 'was'} installed/updated.`,
      );
    }
    const holdList = Object.values(holds ?? {});
    for (const h of holdList.filter((x) => Object.keys(x.changes).length > 0)) {
      comment.push(h.comment);
      const c = (changes[h.name] ??= {}) as Record<string, string>;
      const hc = h.changes as Record<string, unknown>;
      c.new = `${c.new ? `${c.new}\n` : ''}${pyStr(hc.new)}`;
      if (c.old !== undefined) c.old = `${c.old ? `${c.old}\n` : ''}${pyStr(hc.old)}`;
    }
    if (notModified.length > 0) {
      const n = notModified.length;
      comment.push(
        n <= 20
          ? `The following packages were already installed: ${label(notModified)}`
          : `${n} targeted package${n > 1 ? 's' : ''} ${n > 1 ? 'were' : 'was'} already installed`,
      );
    }
    for (const h of holdList.filter((x) => Object.keys(x.changes).length === 0 && x.result)) comment.push(h.comment);
    let result = true;
    if (failed.length > 0) {
      comment.unshift(`The following packages failed to install/update: ${label(failed)}`);
      result = false;
    }
    for (const h of holdList.filter((x) => !x.result)) {
      comment.push(h.comment);
      result = false;
    }
    // Whether each reinstall took: reinstall=True asks pkg.install's answer, pkg_verify verifies again.
    const reinstalled: string[] = [];
    const notReinstalled: string[] = [];
    for (const p of Object.keys(toReinstall)) {
      if (a.reinstall) (p in pkgRet ? reinstalled : notReinstalled).push(p);
      else if (pkgVerify) {
        const altered = (await this.salt.call('pkg.verify', [p], verifyKwargs)) as Record<string, unknown>;
        if (Object.keys(altered).length > 0) {
          notReinstalled.push(p);
          alteredFiles[p] = altered;
        } else reinstalled.push(p);
      }
    }
    const pkgLabel = (p: string): string => (sources ? p : desiredPkg(p, desired));
    for (const p of reinstalled) {
      if (!(p in alteredFiles)) comment.push(`Package ${pkgLabel(p)} was reinstalled.`);
      else comment.push(`Package ${pkgLabel(p)} was reinstalled. The following files were remediated:`, formatNested(alteredFiles[p]));
    }
    for (const p of notReinstalled) {
      if (!(p in alteredFiles)) comment.push(`Reinstall was not successful for package ${pkgLabel(p)}.`);
      else
        comment.push(
          `Reinstall was not successful for package ${pkgLabel(p)}. The following files could not be remediated:`,
          formatNested(alteredFiles[p]),
        );
      result = false;
    }
    return withWarnings({ name, changes, result, comment: comment.join('\n') });
  }

  @State({
    summary: 'Ensure that the named packages are installed at the latest version available',
    description: 'pkgs: several packages; refresh: update the package database first; fromrepo; skip_verify.',
    examples: ['vim:\n  pkg.latest', 'tools:\n  pkg.latest:\n    - pkgs: [curl, jq]'],
    args: {
      name: arg.string(),
      refresh: arg.any({ optional: true }),
      fromrepo: arg.string({ optional: true }),
      skip_verify: arg.boolean({ default: false }),
      pkgs: arg.list({ optional: true }),
      watch_flags: arg.boolean({ default: true }),
    },
    kwargs: true,
  })
  async latest(
    a: { name: string; refresh?: unknown; fromrepo?: string; skip_verify: boolean; pkgs?: unknown[]; kwargs: Record<string, unknown> },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const { name } = a;
    const fail = (comment: string): StateReturn => ({ name, changes: {}, result: false, comment });
    const refresh = isTrue(a.refresh ?? false);
    if (a.kwargs.sources) return fail('The "sources" parameter is not supported.');
    let desiredPkgs: string[];
    if (a.pkgs && a.pkgs.length > 0) {
      const packed = repackPkgs(a.pkgs);
      if (!packed || Object.keys(packed).length === 0) return fail('Invalidly formatted "pkgs" parameter. See minion log.');
      desiredPkgs = Object.keys(packed);
    } else if (Array.isArray(a.pkgs)) return { name, changes: {}, result: true, comment: 'No packages to install provided' };
    else desiredPkgs = [name];

    let avail: unknown;
    try {
      avail = await this.salt.call('pkg.latest_version', desiredPkgs, { fromrepo: a.fromrepo, refresh });
    } catch (err) {
      if (!(err instanceof CommandExecutionError)) throw err;
      return fail(`An error was encountered while checking the newest available version of package(s): ${err.message}`);
    }
    let cur: unknown;
    try {
      cur = await this.salt.call('pkg.version', desiredPkgs);
    } catch (err) {
      if (!(err instanceof CommandExecutionError)) throw err;
      return fail(err.message);
    }
    const curMap = (typeof cur === 'string' ? { [desiredPkgs[0]]: cur } : cur) as Record<string, string>;
    const availMap = (typeof avail === 'string' ? { [desiredPkgs[0]]: avail } : avail) as Record<string, string>;
    const targets: Desired = {};
    const problems: string[] = [];
    for (const pkg of desiredPkgs) {
      if (availMap[pkg]) targets[pkg] = availMap[pkg];
      else if (!curMap[pkg]) problems.push(`No information found for '${pkg}'.`);
    }
    if (problems.length > 0) return fail(problems.join(' '));
    const tnames = Object.keys(targets).sort();
    if (tnames.length === 0) {
      const comment =
        desiredPkgs.length > 10
          ? `All ${desiredPkgs.length} packages are up-to-date.`
          : desiredPkgs.length > 1
            ? `All packages are up-to-date (${[...desiredPkgs].sort().join(', ')}).`
            : `Package ${desiredPkgs[0]} is already up-to-date`;
      return { name, changes: {}, result: true, comment };
    }
    const upToDate = a.pkgs ? desiredPkgs.filter((x) => !(x in targets)).sort() : [];
    if (ctx.test) {
      const comments = [`The following packages would be installed/upgraded: ${tnames.join(', ')}`];
      if (upToDate.length > 0)
        comments.push(
          upToDate.length <= 10
            ? `The following packages are already up-to-date: ${upToDate.map((x) => `${x} (${curMap[x]})`).join(', ')}`
            : `${upToDate.length} packages are already up-to-date`,
        );
      return { name, changes: await this.inv.installableVersions(targets, curMap), result: null, comment: comments.join('\n') };
    }
    let changes: Record<string, { new?: string; old?: string }>;
    try {
      changes = (await this.salt.call('pkg.install', [], {
        ...a.kwargs,
        refresh: false,
        fromrepo: a.fromrepo,
        skip_verify: a.skip_verify,
        pkgs: Object.keys(targets),
      })) as typeof changes;
    } catch (err) {
      if (!(err instanceof CommandExecutionError)) throw err;
      return fail(`An error was encountered while installing package(s): ${err.message}`);
    }
    // Salt's two wordings differ in spacing: kept as they are.
    const upToDateNote = (failed: boolean): string =>
      upToDate.length === 0
        ? ''
        : upToDate.length <= 10
          ? `${failed ? ' ' : ''}The following packages were already up-to-date: ${upToDate.join(', ')}`
          : failed
            ? `${upToDate.length} packages were already up-to-date`
            : `${upToDate.length} packages were already up-to-date `;
    if (Object.keys(changes).length > 0) {
      const failed = tnames.filter((x) => {
        const c = changes[x];
        return !c || (c.new !== undefined && !c.new.split(',').includes(String(targets[x])) && targets[x] !== 'latest');
      });
      const ok = tnames.filter((x) => !failed.includes(x));
      const comments: string[] = [];
      if (failed.length > 0) comments.push(`The following packages failed to update: ${failed.join(', ')}`);
      if (ok.length > 0) comments.push(`The following packages were successfully installed/upgraded: ${ok.join(', ')}`);
      if (upToDate.length > 0) comments.push(upToDateNote(false));
      return { name, changes, result: failed.length === 0, comment: comments.join(' ') };
    }
    const comment =
      tnames.length > 10
        ? `${tnames.length} targeted packages failed to update. See debug log for details.`
        : tnames.length > 1
          ? `The following targeted packages failed to update. See debug log for details: (${tnames.join(', ')}).`
          : `Package ${tnames[0]} failed to update.`;
    return { name, changes, result: false, comment: comment + upToDateNote(true) };
  }

  @State({
    modWatch: true,
    summary: 'What a watch requisite runs: the state function again (installed, latest, removed, purged)',
    args: { ...INSTALLED_ARGS, watch_flags: arg.boolean({ default: true }), sfun: arg.string({ optional: true }) },
    kwargs: true,
  })
  mod_watch(a: InstalledArgs & { sfun?: string }, ctx: StateContext): Promise<StateReturn> | StateReturn {
    if (a.sfun === 'installed') return this.installed(a, ctx);
    if (a.sfun === 'latest') return this.latest(a, ctx);
    if (a.sfun === 'removed') return this.removed(a, ctx);
    if (a.sfun === 'purged') return this.purged(a, ctx);
    return { name: a.name, changes: {}, comment: `pkg.${a.sfun ?? 'None'} does not work with the watch requisite`, result: false };
  }

  /** Salt's `_uninstall`, shared by removed and purged. */
  private async uninstall(action: 'remove' | 'purge', a: Targets, ctx: StateContext): Promise<StateReturn> {
    const { name } = a;
    const version = versionText(a.version);
    const params = a.pkgs ? (repackPkgs(a.pkgs) ?? {}) : { [name]: version };
    const found = await this.inv.findRemoveTargets(name, version, a.pkgs, epochChoice(a.ignore_epoch));
    let targets: string[];
    if (!Array.isArray(found)) {
      if (action !== 'purge') return found;
      targets = [];
    } else targets = found;
    if (action === 'purge') {
      const oldRemoved = await this.inv.listPkgs({ removed: true });
      targets.push(...Object.keys(params).filter((x) => x in oldRemoved));
    }
    targets.sort();
    if (targets.length === 0)
      return {
        name,
        changes: {},
        result: true,
        comment: `None of the targeted packages are installed${action === 'purge' ? ' or partially installed' : ''}`,
      };
    if (ctx.test)
      return {
        name,
        changes: Object.fromEntries(targets.map((x) => [x, { new: `${action}d`, old: '' }])),
        result: null,
        comment: `The following packages will be ${action}d: ${targets.join(', ')}.`,
      };
    const changes = (await this.salt.call(`pkg.${action}`, [name], { pkgs: a.pkgs, version: version ?? undefined })) as Changes;
    const now = await this.inv.listPkgs();
    const failed = Object.keys(params).filter((p) => p in now);
    if (action === 'purge') {
      const newRemoved = await this.inv.listPkgs({ removed: true });
      failed.push(...Object.keys(params).filter((x) => x in newRemoved));
    }
    failed.sort();
    if (failed.length > 0)
      return { name, changes, result: false, comment: `The following packages failed to ${action}: ${failed.join(', ')}.` };
    const notInstalled = Object.keys(params)
      .filter((x) => !targets.includes(x))
      .sort();
    const comment =
      notInstalled.length > 0
        ? `The following packages were not installed: ${notInstalled.join(', ')} The following packages were ${action}d: ${targets.join(', ')}.`
        : `All targeted packages were ${action}d.`;
    return { name, changes, result: true, comment };
  }

  private async uninstallState(action: 'remove' | 'purge', a: Targets, ctx: StateContext): Promise<StateReturn> {
    try {
      return await this.uninstall(action, a, ctx);
    } catch (err) {
      if (!(err instanceof CommandExecutionError)) throw err;
      const info = err.info as { changes?: Changes } | undefined;
      if (info?.changes) return { name: a.name, result: false, changes: info.changes, comment: err.message };
      const verb = action === 'remove' ? 'removing' : 'purging';
      return { name: a.name, result: false, changes: {}, comment: `An error was encountered while ${verb} package(s): ${err.message}` };
    }
  }

  @State({
    summary: 'Ensure that the package is not installed (its configuration files may stay)',
    examples: ['telnet:\n  pkg.removed', 'old:\n  pkg.removed:\n    - pkgs: [telnet, rsh-client]'],
    args: TARGET_ARGS,
    kwargs: true,
  })
  removed(a: Targets, ctx: StateContext): Promise<StateReturn> {
    return this.uninstallState('remove', a, ctx);
  }

  @State({
    summary: 'Ensure that the package is not installed and its configuration files are gone',
    examples: ['telnet:\n  pkg.purged'],
    args: TARGET_ARGS,
    kwargs: true,
  })
  purged(a: Targets, ctx: StateContext): Promise<StateReturn> {
    return this.uninstallState('purge', a, ctx);
  }

  @State({
    summary: 'Ensure that the packages are held at their version',
    description: 'pkgs: several packages; replace: release every other held package.',
    examples: ['vim:\n  pkg.held', 'pinned:\n  pkg.held:\n    - pkgs: [vim, curl]'],
    args: {
      name: arg.string(),
      version: arg.any({ optional: true }),
      pkgs: arg.list({ optional: true }),
      replace: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  held(a: HeldArgs, ctx: StateContext): Promise<StateReturn> {
    return this.holds.held(a, ctx.test);
  }

  @State({
    summary: 'Ensure that the packages are not held',
    description: 'pkgs: several packages; all: release every held package.',
    examples: ['vim:\n  pkg.unheld'],
    args: {
      name: arg.string(),
      version: arg.any({ optional: true }),
      pkgs: arg.list({ optional: true }),
      all: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  unheld(a: UnheldArgs, ctx: StateContext): Promise<StateReturn> {
    return this.holds.unheld(a, ctx.test);
  }
}
