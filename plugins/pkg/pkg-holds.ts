/**
 * Salt's pkg.held / pkg.unheld and the `hold:` option of pkg.installed, over whichever hold the
 * backend has: pkg.list_locks, pkg.list_holds (dnf/yum versionlock) or dpkg selections (apt).
 */
import { pyStr, type ISalt, type StateReturn } from 'brine/plugin';

/** What pkg.hold / pkg.unhold answer: one entry per package. */
export type HoldAnswer = Record<string, { name: string; changes: Record<string, unknown>; result: boolean; comment: string }>;

export interface HeldArgs {
  name: string;
  version?: unknown;
  pkgs?: unknown[];
  replace: boolean;
}

export interface UnheldArgs {
  name: string;
  version?: unknown;
  pkgs?: unknown[];
  all: boolean;
}

const versionText = (v: unknown): string | null => (v === undefined || v === null || v === '' ? null : pyStr(v));
const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class PkgHolds {
  constructor(private readonly salt: ISalt) {}

  /** installed's hold=True/False when nothing needed installing: Salt appends each hold's comment. */
  async afterInstall(found: StateReturn, hold: boolean, name: string, pkgs?: unknown[], sources?: unknown[]): Promise<StateReturn> {
    let answer: HoldAnswer;
    try {
      answer = (await this.salt.call(hold ? 'pkg.hold' : 'pkg.unhold', [], { name, pkgs, sources })) as HoldAnswer;
    } catch (err) {
      return { name, changes: {}, result: false, comment: errText(err) };
    }
    const ret = { ...found, changes: { ...found.changes } };
    const all = Object.values(answer);
    const ordered = [
      ...all.filter((h) => Object.keys(h.changes).length > 0),
      ...all.filter((h) => Object.keys(h.changes).length === 0 && h.result),
      ...all.filter((h) => !h.result),
    ];
    for (const h of ordered) {
      ret.comment = `${String(ret.comment)}.\n${h.comment}`;
      ret.result = h.result;
      if (Object.keys(h.changes).length > 0) ret.changes[h.name] = h.changes;
    }
    return ret;
  }

  /** The held packages as Salt's held/unheld read them: pkg.list_locks, pkg.list_holds or dpkg selections. */
  private async locks(): Promise<{ locks: Record<string, { version?: string; type?: string }>; versioned: boolean } | null> {
    const locks: Record<string, { version?: string; type?: string }> = {};
    if (this.salt.has('pkg.list_locks')) return { locks: (await this.salt.call('pkg.list_locks')) as typeof locks, versioned: true };
    if (this.salt.has('pkg.list_holds')) {
      for (const lock of (await this.salt.call('pkg.list_holds', [], { full: true })) as string[]) {
        const m = /^(.+)-(\d+):(.*)\.\*/.exec(lock);
        if (m) locks[m[1]] = { version: `${m[2] === '0' ? '' : `${m[2]}:`}${m[3]}` };
        else locks[lock] = {};
      }
      return { locks, versioned: false };
    }
    if (this.salt.has('pkg.get_selections')) {
      const sel = (await this.salt.call('pkg.get_selections', [], { state: 'hold' })) as Record<string, string[]>;
      for (const p of sel.hold ?? []) locks[p] = {};
      return { locks, versioned: false };
    }
    return null;
  }

  async held(a: HeldArgs, test: boolean): Promise<StateReturn> {
    const { name } = a;
    if (Array.isArray(a.pkgs) && a.pkgs.length === 0 && !a.replace)
      return { name, changes: {}, result: true, comment: 'No packages to be held provided' };
    const version = versionText(a.version);
    const pkgs: unknown[] = a.pkgs ?? (version ? [{ [name]: version }] : [name]);
    const known = await this.locks();
    if (!known)
      return {
        name,
        changes: {},
        result: false,
        comment: 'No any function to get the list of held packages available.\nCheck if the package manager supports package locking.',
      };
    if (!this.salt.has('pkg.hold'))
      return { name, changes: {}, result: false, comment: '`hold` function is not implemented for the package manager.' };
    const { locks, versioned } = known;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const comments: string[] = [];
    const heldPkgs = new Set<string>();
    for (const pkg of pkgs) {
      const [pkgName, pkgVer] =
        typeof pkg === 'object' && pkg !== null ? [Object.keys(pkg)[0], versionText(Object.values(pkg)[0])] : [pyStr(pkg), null];
      const lockVer = locks[pkgName]?.version?.replace(/^[= ]+/, '') ?? null;
      heldPkgs.add(pkgName);
      if (pkgName in locks && !(versioned && lockVer !== pkgVer)) continue;
      const ver = pkgVer ? ` (version = ${pkgVer})` : '';
      if (test) {
        comments.push(
          pkgName in locks
            ? `The following package's hold rule would be updated: ${pkgName}${ver}`
            : `The following package would be held: ${pkgName}${ver}`,
        );
        continue;
      }
      const unhold = pkgName in locks ? ((await this.salt.call('pkg.unhold', [], { name, pkgs: [pkgName] })) as HoldAnswer) : null;
      const hold = (await this.salt.call('pkg.hold', [], { name, pkgs: [pkg] })) as HoldAnswer;
      const holdOk = hold[pkgName]?.result ?? false;
      if (!holdOk) ret.result = false;
      if (unhold?.[pkgName]?.result && holdOk) comments.push(`Package ${pkgName} was updated with hold rule`);
      else if (holdOk) comments.push(`Package ${pkgName} is now being held`);
      else comments.push(`Package ${pkgName} was not held`);
      Object.assign(ret.changes, hold);
    }
    if (a.replace) {
      for (const [pkgName, lock] of Object.entries(locks)) {
        if ((lock.type ?? 'package') !== 'package' || heldPkgs.has(pkgName)) continue;
        if (test) comments.push(`The following package would be unheld: ${pkgName}`);
        else {
          const unhold = (await this.salt.call('pkg.unhold', [], { name, pkgs: [pkgName] })) as HoldAnswer;
          if (!unhold[pkgName]?.result) ret.result = false;
          if (unhold[pkgName]?.comment) comments.push(unhold[pkgName].comment);
          Object.assign(ret.changes, unhold);
        }
      }
    }
    ret.comment = comments.join('\n');
    if (Object.keys(ret.changes).length === 0 && !ret.comment) ret.comment = 'No changes made';
    return ret;
  }

  async unheld(a: UnheldArgs, test: boolean): Promise<StateReturn> {
    const { name } = a;
    if (Array.isArray(a.pkgs) && a.pkgs.length === 0 && !a.all)
      return { name, changes: {}, result: true, comment: 'No packages to be unheld provided' };
    const pkgs: unknown[] = a.pkgs ?? [{ [name]: versionText(a.version) }];
    const known = await this.locks();
    if (!known)
      return {
        name,
        changes: {},
        result: false,
        comment: 'No any function to get the list of held packages available.\nCheck if the package manager supports package locking.',
      };
    const { locks, versioned } = known;
    const wanted: Record<string, string | null> = {};
    for (const pkg of pkgs) {
      if (typeof pkg === 'object' && pkg !== null) wanted[Object.keys(pkg)[0]] = versionText(Object.values(pkg)[0]);
      else wanted[pyStr(pkg)] = null;
    }
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const comments: string[] = [];
    for (const [pkgName, lock] of Object.entries(locks)) {
      if ((lock.type ?? 'package') !== 'package') continue;
      const lockVer = versioned && lock.version ? lock.version.replace(/^[= ]+/, '') : null;
      if (!(a.all || (pkgName in wanted && (!lockVer || lockVer === wanted[pkgName])))) continue;
      if (test) comments.push(`The following package would be unheld: ${pkgName}${wanted[pkgName] ? ` (version = ${lockVer})` : ''}`);
      else {
        const unhold = (await this.salt.call('pkg.unhold', [], { name, pkgs: [pkgName] })) as HoldAnswer;
        if (!unhold[pkgName]?.result) ret.result = false;
        if (unhold[pkgName]?.comment) comments.push(unhold[pkgName].comment);
        Object.assign(ret.changes, unhold);
      }
    }
    ret.comment = comments.join('\n');
    if (Object.keys(ret.changes).length === 0 && !ret.comment) ret.comment = 'No changes made';
    return ret;
  }
}
