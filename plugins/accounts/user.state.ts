import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import {
  arg,
  CommandExecutionError,
  inject,
  IGrains,
  ISalt,
  pyRepr,
  pyStr,
  State,
  StateModule,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';
import type { GroupInfo } from './group.module';
import type { ShadowInfo } from './shadow.module';
import type { UserInfo } from './user.module';

type Changes = Record<string, unknown>;

const GECOS = ['fullname', 'roomnumber', 'workphone', 'homephone', 'other'] as const;
const SHADOW_DAYS = [
  ['mindays', 'min'],
  ['maxdays', 'max'],
  ['inactdays', 'inact'],
  ['warndays', 'warn'],
] as const;

/** The arguments of user.present that _changes compares. */
interface Wanted {
  uid?: number;
  gid?: unknown;
  groups?: string[];
  optional_groups?: string[];
  remove_groups: boolean;
  home?: string;
  createhome: boolean;
  password?: string;
  enforce_password: boolean;
  empty_password: boolean;
  shell?: string;
  fullname?: string;
  roomnumber?: string;
  workphone?: string;
  homephone?: string;
  other?: string;
  date?: unknown;
  mindays?: number;
  maxdays?: number;
  inactdays?: number;
  warndays?: number;
  expire?: unknown;
  allow_uid_change: boolean;
  allow_gid_change: boolean;
  password_lock?: boolean;
  local: boolean;
}

type Gecos = (typeof GECOS)[number];

/** user.present's options that say how to create or change the account, not what it holds. */
interface HowOptions {
  name: string;
  usergroup?: boolean;
  persist_home: boolean;
  hash_password: boolean;
  unique: boolean;
  system: boolean;
  loginclass?: string;
  nologinit: boolean;
}

/** user.present's arguments as the state receives them (GECOS values of any type, made text before use). */
interface PresentInput extends Omit<Wanted, Gecos>, HowOptions {
  fullname?: unknown;
  roomnumber?: unknown;
  workphone?: unknown;
  homephone?: unknown;
  other?: unknown;
}

interface PresentArgs extends Wanted, HowOptions {}

const isDir = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();
const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
const GROUPS = arg.list({ optional: true, split: true, of: arg.string() });

/**
 * Salt's `user` states (salt/states/user.py) for Linux over the user, group and shadow modules:
 * present (create, or change uid, gid, groups, home, shell, GECOS, password and aging) and absent.
 */
@StateModule('user', {
  available: (grains) => ['Linux', 'OpenBSD', 'NetBSD', 'AIX'].includes(String(grains.kernel)) || 'the user states need the user module',
})
export class UserStates {
  constructor(
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IGrains) private readonly grains: IGrains,
  ) {}

  private async userInfo(name: string, local: boolean): Promise<UserInfo | null> {
    const info = (await this.salt.call('user.info', [name], local ? { root: '/' } : {})) as UserInfo | Record<string, never>;
    return 'name' in info ? (info as UserInfo) : null;
  }

  private shadow(name: string): Promise<ShadowInfo> {
    return this.salt.call('shadow.info', [name]) as Promise<ShadowInfo>;
  }

  private groupToGid(group: unknown): Promise<number | ''> {
    return this.salt.call('file.group_to_gid', [group]) as Promise<number | ''>;
  }

  /** Salt's _group_changes: whether the groups differ once groups sharing a gid count as one. */
  private async groupChanges(cur: string[], wanted: string[], remove: boolean): Promise<boolean> {
    const c = new Set(cur);
    const w = new Set(wanted);
    const same = c.size === w.size && [...w].every((g) => c.has(g));
    if (same || (!remove && [...w].every((g) => c.has(g)))) return false;
    const all = new Map<string, GroupInfo>();
    for (const g of new Set([...c, ...w])) all.set(g, (await this.salt.call('group.info', [g])) as GroupInfo);
    const diff = remove
      ? [...new Set([...w].filter((g) => !c.has(g)).concat([...c].filter((g) => !w.has(g))))]
      : [...w].filter((g) => !c.has(g));
    const remain = [...diff];
    for (const d of diff) {
      for (const [g, info] of all) {
        if (g !== d && all.get(d)?.gid === info.gid) {
          const at = remain.indexOf(d);
          if (at !== -1) remain.splice(at, 1);
        }
      }
    }
    return remain.length > 0;
  }

  /** Salt's _changes: what differs between the user and the wanted one; false when the user does not exist. */
  private async changes(name: string, a: Wanted): Promise<Changes | false> {
    const hasShadow = this.salt.has('shadow.info');
    const lshad = hasShadow ? await this.shadow(name) : null;
    const lusr = await this.userInfo(name, a.local);
    if (!lusr) return false;
    const change: Changes = {};
    let wanted = [...new Set([...(a.groups ?? []), ...(a.optional_groups ?? [])])].sort();
    const gids = await Promise.all(lusr.groups.map((g) => this.groupToGid(g)));
    // Groups sharing one gid (a user's primary group under two names) count as one.
    const dupes = new Map<number | '', string[]>();
    gids.forEach((g, i) => {
      if (gids.filter((x) => x === g).length > 1) dupes.set(g, [...(dupes.get(g) ?? []), lusr.groups[i]]);
    });
    const inDupes = (g: string): boolean => [...dupes.values()].flat().includes(g);
    const drop = (list: string[], g: string): void => {
      const at = list.indexOf(g);
      if (at !== -1) list.splice(at, 1);
    };
    if (!a.remove_groups || (a.groups === undefined && !a.optional_groups?.length))
      wanted = [...new Set([...wanted, ...lusr.groups])].sort();
    if (a.uid && lusr.uid !== a.uid) change.uid = a.uid;
    if (a.gid !== undefined && a.gid !== null && lusr.gid !== a.gid && lusr.gid !== (await this.groupToGid(a.gid))) change.gid = a.gid;
    const defaultGrp = await this.salt.call('file.gid_to_group', [a.gid ?? lusr.gid]);
    const oldDefault = await this.salt.call('file.gid_to_group', [lusr.gid]);
    const groups = [...lusr.groups];
    const removeDupesOf = async (g: string, fromWanted: boolean): Promise<void> => {
      for (const n of dupes.get(await this.groupToGid(g)) ?? []) {
        drop(groups, n);
        if (fromWanted) drop(wanted, n);
      }
    };
    if (typeof defaultGrp === 'string' && (groups.includes(defaultGrp) || wanted.includes(defaultGrp))) {
      if (inDupes(defaultGrp)) await removeDupesOf(defaultGrp, true);
      else {
        drop(groups, defaultGrp);
        drop(wanted, defaultGrp);
      }
    }
    if (oldDefault !== defaultGrp && typeof oldDefault === 'string' && groups.includes(oldDefault)) {
      if (inDupes(oldDefault)) await removeDupesOf(oldDefault, false);
      else drop(groups, oldDefault);
    }
    if (groups.includes(name) && !wanted.includes(name)) {
      if (inDupes(name)) await removeDupesOf(name, false);
      else drop(groups, name);
    }
    if ((await this.groupChanges(groups, wanted, a.remove_groups)) && (wanted.length > 0 || a.remove_groups)) change.groups = wanted;
    if (a.home && lusr.home !== a.home) change.home = a.home;
    if (a.createhome) {
      const newhome = a.home || lusr.home;
      if (newhome && !isDir(newhome)) change.homeDoesNotExist = newhome;
    }
    if (a.shell && lusr.shell !== a.shell) change.shell = a.shell;
    if (lshad && this.salt.has('shadow.default_hash')) {
      if (a.password && !a.empty_password) {
        const defaultHash = await this.salt.call('shadow.default_hash');
        if ((lshad.passwd === defaultHash || a.enforce_password) && lshad.passwd !== a.password) change.passwd = a.password;
      }
      if (a.empty_password && lshad.passwd !== '') change.empty_password = true;
      if (a.date !== undefined && a.date !== null && lshad.lstchg !== a.date) change.date = a.date;
      for (const [arg, key] of SHADOW_DAYS) if (a[arg] !== undefined && a[arg] !== null && lshad[key] !== a[arg]) change[arg] = a[arg];
      if (a.expire && lshad.expire !== a.expire) change.expire = a.expire;
      if ((a.password_lock && !lshad.passwd.startsWith('!')) || (a.password_lock === false && lshad.passwd.startsWith('!')))
        change.password_lock = a.password_lock;
    }
    for (const key of GECOS) if (a[key] !== undefined && a[key] !== null && lusr[key] !== a[key]) change[key] = a[key];
    const errors: string[] = [];
    if (!a.allow_uid_change && 'uid' in change)
      errors.push(
        `Changing uid (${lusr.uid} -> ${String(a.uid)}) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.`,
      );
    if (!a.allow_gid_change && 'gid' in change)
      errors.push(
        `Changing gid (${lusr.gid} -> ${String(a.gid)}) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership.`,
      );
    if (errors.length > 0) {
      // Salt's CommandExecutionError(message, info=errors): the info in nested output.
      throw new CommandExecutionError(
        `Encountered error checking for needed changes. Additional info follows:\n\n${errors.map((e) => `- ${e}`).join('\n')}`,
      );
    }
    return change;
  }

  @State({
    summary: 'Ensure that the named user is present with the specified properties',
    description:
      'uid, gid, usergroup, groups (all of them unless remove_groups=False), optional_groups, home, createhome, persist_home, ' +
      'password (a hash; hash_password=True hashes a clear text one), enforce_password, empty_password, shell, unique, system, ' +
      'fullname, roomnumber, workphone, homephone, other, date, mindays, maxdays, inactdays, warndays, expire, nologinit, ' +
      'allow_uid_change, allow_gid_change, password_lock.',
    examples: ['fred:\n  user.present:\n    - fullname: Fred Jones\n    - shell: /bin/zsh\n    - groups:\n      - wheel'],
    args: {
      name: arg.string(),
      uid: arg.integer({ optional: true }),
      gid: arg.any({ optional: true }),
      usergroup: arg.boolean({ optional: true }),
      groups: GROUPS,
      optional_groups: GROUPS,
      remove_groups: arg.boolean({ default: true }),
      home: arg.string({ optional: true }),
      createhome: arg.boolean({ default: true }),
      persist_home: arg.boolean({ default: false }),
      password: arg.string({ optional: true }),
      hash_password: arg.boolean({ default: false }),
      enforce_password: arg.boolean({ default: true }),
      empty_password: arg.boolean({ default: false }),
      shell: arg.string({ optional: true }),
      unique: arg.boolean({ default: true }),
      system: arg.boolean({ default: false }),
      fullname: arg.any({ optional: true }),
      roomnumber: arg.any({ optional: true }),
      workphone: arg.any({ optional: true }),
      homephone: arg.any({ optional: true }),
      other: arg.any({ optional: true }),
      loginclass: arg.string({ optional: true }),
      date: arg.any({ optional: true }),
      mindays: arg.integer({ optional: true }),
      maxdays: arg.integer({ optional: true }),
      inactdays: arg.integer({ optional: true }),
      warndays: arg.integer({ optional: true }),
      expire: arg.any({ optional: true }),
      nologinit: arg.boolean({ default: false }),
      allow_uid_change: arg.boolean({ default: false }),
      allow_gid_change: arg.boolean({ default: false }),
      password_lock: arg.boolean({ optional: true }),
      local: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async present(input: PresentInput, ctx: StateContext): Promise<StateReturn> {
    const a: PresentArgs = {
      ...input,
      fullname: text(input.fullname),
      roomnumber: text(input.roomnumber),
      workphone: text(input.workphone),
      homephone: text(input.homephone),
      other: text(input.other),
    };
    const { name } = a;
    if (a.password && a.hash_password) a.password = await this.hashPassword(name, a.password);
    const ret: StateReturn = { name, changes: {}, result: true, comment: `User ${name} is present and up to date` };
    for (const field of [a.fullname, a.roomnumber, a.workphone]) {
      if (field?.includes(',')) return { ...ret, result: false, comment: `Unsupported char ',' in ${field}` };
    }
    if (a.groups?.length) {
      const missing: string[] = [];
      for (const g of a.groups) if (!('name' in ((await this.salt.call('group.info', [g])) as object))) missing.push(g);
      if (missing.length > 0) return { ...ret, result: false, comment: `The following group(s) are not present: ${missing.join(',')}` };
    }
    let presentOpt: string[] | undefined;
    if (a.optional_groups?.length) {
      presentOpt = [];
      for (const g of a.optional_groups) if ('name' in ((await this.salt.call('group.info', [g])) as object)) presentOpt.push(g);
    }
    const wanted: Wanted = { ...a, optional_groups: presentOpt };
    const changesGid = a.usergroup && (await this.groupToGid(name)) !== '' ? name : a.gid;
    let changes: Changes | false;
    try {
      changes = await this.changes(name, { ...wanted, gid: changesGid });
    } catch (e) {
      return { ...ret, result: false, comment: (e as Error).message };
    }
    if (changes && Object.keys(changes).length > 0) {
      if (ctx.test) {
        ret.comment = 'The following user attributes are set to be changed:\n';
        for (const [key, val] of Object.entries(changes)) ret.comment += `${key}: ${key === 'passwd' ? 'XXX-REDACTED-XXX' : pyStr(val)}\n`;
        return { ...ret, result: null };
      }
      return this.update(name, a, wanted, changes, ret);
    }
    if (changes !== false) return ret;
    if (ctx.test) return { ...ret, result: null, comment: `User ${name} set to be added` };
    return this.create(name, a, presentOpt, ret);
  }

  /** Salt's hash_password: the clear text password hashed with the salt and algorithm of the current hash, if any. */
  private async hashPassword(name: string, password: string): Promise<string> {
    const algorithms: Record<string, string> = { '1': 'md5', '2a': 'blowfish', '5': 'sha256', '6': 'sha512' };
    const parts = (await this.shadow(name)).passwd.split('$');
    if (parts.length === 4) {
      return (await this.salt.call('shadow.gen_password', [password], { crypt_salt: parts[2], algorithm: algorithms[parts[1]] })) as string;
    }
    return (await this.salt.call('shadow.gen_password', [password])) as string;
  }

  /** Apply the changes to an existing user, then report what changed (Salt's present, existing-user branch). */
  private async update(name: string, a: PresentArgs, wanted: Wanted, changes: Changes, ret: StateReturn): Promise<StateReturn> {
    const lshad = await this.shadow(name);
    const pre = (await this.userInfo(name, a.local))!;
    if ('passwd' in changes) {
      delete changes.passwd;
      if (!a.empty_password) await this.salt.call('shadow.set_password', [name, a.password]);
    }
    if (changes.empty_password === true) await this.salt.call('shadow.del_password', [name]);
    delete changes.empty_password;
    if ('password_lock' in changes) {
      await this.salt.call(changes.password_lock ? 'shadow.lock_password' : 'shadow.unlock_password', [name]);
      delete changes.password_lock;
    }
    if ('date' in changes) {
      delete changes.date;
      await this.salt.call('shadow.set_date', [name, a.date]);
    }
    let homeChanged = false;
    if ('home' in changes) {
      const val = changes.home;
      delete changes.home;
      if (!('homeDoesNotExist' in changes)) {
        await this.salt.call('user.chhome', [name, val], { persist: a.persist_home });
        homeChanged = true;
      }
    }
    if ('homeDoesNotExist' in changes) {
      const val = String(changes.homeDoesNotExist);
      delete changes.homeDoesNotExist;
      if (!homeChanged) await this.salt.call('user.chhome', [name, val], { persist: a.persist_home });
      if (!isDir(val)) {
        mkdirSync(val, { recursive: true });
        chownSync(val, pre.uid, pre.gid);
        chmodSync(val, 0o755);
      }
    }
    for (const [arg] of SHADOW_DAYS) {
      if (arg in changes) {
        delete changes[arg];
        await this.salt.call(`shadow.set_${arg}`, [name, a[arg]]);
      }
    }
    if ('expire' in changes) {
      delete changes.expire;
      await this.salt.call('shadow.set_expire', [name, a.expire]);
    }
    for (const key of Object.keys(changes).filter((k) => k !== 'groups' && this.salt.has(`user.ch${k}`))) {
      await this.salt.call(`user.ch${key}`, [name, changes[key]]);
      delete changes[key];
    }
    if ('groups' in changes) {
      await this.salt.call('user.chgroups', [name, changes.groups, !a.remove_groups]);
      delete changes.groups;
    }
    const post = (await this.userInfo(name, a.local)) ?? ({} as UserInfo);
    const spost = lshad.passwd !== a.password ? await this.shadow(name) : null;
    const diff: Changes = {};
    for (const key of Object.keys(post) as (keyof UserInfo)[]) if (pyRepr(post[key]) !== pyRepr(pre[key])) diff[key] = post[key];
    if (spost) {
      for (const key of Object.keys(spost) as (keyof ShadowInfo)[])
        if (lshad[key] !== spost[key]) diff[key] = key === 'passwd' ? 'XXX-REDACTED-XXX' : spost[key];
    }
    ret.changes = diff;
    if (Object.keys(diff).length > 0) ret.comment = `Updated user ${name}`;
    const left = await this.changes(name, { ...wanted, allow_uid_change: true, allow_gid_change: true });
    if (left && Object.keys(left).length > 0) {
      ret.comment = `These values could not be changed: ${pyRepr(left)}`;
      ret.result = false;
    }
    return ret;
  }

  /** Create the user, then set the password and aging (Salt's present, new-user branch). */
  private async create(name: string, a: PresentArgs, presentOpt: string[] | undefined, ret: StateReturn): Promise<StateReturn> {
    let groups = a.groups;
    if (groups && presentOpt) groups = [...groups, ...presentOpt];
    else if (presentOpt) groups = [...presentOpt];
    const params: Record<string, unknown> = {
      uid: a.uid,
      gid: a.gid,
      groups,
      home: a.home,
      shell: a.shell,
      unique: a.unique,
      system: a.system,
      fullname: a.fullname,
      roomnumber: a.roomnumber,
      workphone: a.workphone,
      homephone: a.homephone,
      other: a.other,
      createhome: a.createhome,
      nologinit: a.nologinit,
      loginclass: a.loginclass,
      local: a.local,
      usergroup: a.usergroup,
    };
    for (const k of Object.keys(params)) if (params[k] === undefined || params[k] === null) delete params[k];
    if ((await this.salt.call('user.add', [name], params)) !== true)
      return { ...ret, result: false, comment: `Failed to create new user ${name}` };
    ret.comment = `New user ${name} created`;
    const changes = { ...((await this.userInfo(name, a.local)) ?? {}) } as Changes;
    if (!a.createhome) changes.home = '';
    ret.changes = changes;
    if (this.grains.get('kernel') === 'Darwin' || !this.salt.has('shadow.info')) return ret;
    const check = async (ok: (s: ShadowInfo) => boolean, failure: string): Promise<void> => {
      if (!ok(await this.shadow(name))) {
        ret.comment = `User ${name} created but failed to ${failure}`;
        ret.result = false;
      }
    };
    if (a.password && !a.empty_password) {
      await this.salt.call('shadow.set_password', [name, a.password]);
      await check((s) => s.passwd === a.password, 'set password to XXX-REDACTED-XXX');
      changes.password = 'XXX-REDACTED-XXX';
    }
    if (a.empty_password && !a.password) {
      await this.salt.call('shadow.del_password', [name]);
      await check((s) => s.passwd === '', 'empty password');
      changes.password = '';
    }
    if (a.date !== undefined && a.date !== null) {
      await this.salt.call('shadow.set_date', [name, a.date]);
      await check((s) => s.lstchg === a.date, `set last change date to ${String(a.date)}`);
      changes.date = a.date;
    }
    const words = { mindays: 'minimum days', maxdays: 'maximum days', inactdays: 'inactive days', warndays: 'warn days' };
    for (const [arg, key] of SHADOW_DAYS) {
      if (!a[arg]) continue;
      await this.salt.call(`shadow.set_${arg}`, [name, a[arg]]);
      await check((s) => s[key] === a[arg], `set ${words[arg]} to ${String(a[arg])}`);
      changes[arg] = a[arg];
    }
    if (a.expire) {
      await this.salt.call('shadow.set_expire', [name, a.expire]);
      await check((s) => s.expire === a.expire, `set expire days to ${String(a.expire)}`);
      changes.expire = a.expire;
    }
    return ret;
  }

  @State({
    summary: 'Ensure that the named user is absent',
    description: 'purge: remove the home directory and mail spool; force: remove the user even while logged in.',
    examples: ['testuser:\n  user.absent:\n    - purge: True'],
    args: {
      name: arg.string(),
      purge: arg.boolean({ default: false }),
      force: arg.boolean({ default: false }),
      local: arg.boolean({ default: false }),
    },
  })
  async absent(
    { name, purge, force, local }: { name: string; purge: boolean; force: boolean; local: boolean },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (!(await this.userInfo(name, local))) return { ...ret, comment: `User ${name} is not present` };
    if (ctx.test) return { ...ret, result: null, comment: `User ${name} set for removal` };
    const before = (await this.salt.call('user.list_groups', [name])) as string[];
    if (!(await this.salt.call('user.delete', [name], { remove: purge, force, local }))) {
      return { ...ret, result: false, comment: `Failed to remove user ${name}` };
    }
    const changes: Changes = {};
    for (const g of before) if (!('name' in ((await this.salt.call('group.info', [g])) as object))) changes[`${g} group`] = 'removed';
    changes[name] = 'removed';
    return { ...ret, changes, comment: `Removed user ${name}` };
  }
}
