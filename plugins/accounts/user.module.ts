import {
  CommandExecutionError,
  Fn,
  IGrains,
  IHost,
  IShell,
  Module,
  arg,
  groupByName,
  groupEntries,
  inject,
  passwdEntries,
  userByName,
  type PasswdEntry,
} from 'brine/plugin';
import { AccountTools } from './account-tools';

/** What Salt's useradd module answers for one passwd entry (`_format_info`). */
export interface UserInfo {
  gid: number;
  groups: string[];
  home: string;
  name: string;
  passwd: string;
  shell: string;
  uid: number;
  fullname: string;
  roomnumber: string;
  workphone: string;
  homephone: string;
  other: string;
}

const GECOS_KEYS = ['fullname', 'roomnumber', 'workphone', 'homephone', 'other'] as const;
type GecosKey = (typeof GECOS_KEYS)[number];

/** The five comma-separated GECOS fields (the last keeps any further commas, as split(',', 4)). */
function gecosFields(gecos: string): Record<GecosKey, string> {
  const parts = gecos.split(',');
  const fields = [...parts.slice(0, 4), parts.slice(4).join(',')];
  return Object.fromEntries(GECOS_KEYS.map((k, i) => [k, fields[i] ?? ''])) as Record<GecosKey, string>;
}

/** Salt's _build_gecos: the five fields joined, trailing empty ones dropped. */
function buildGecos(fields: Record<GecosKey, string>): string {
  return GECOS_KEYS.map((k) => fields[k] ?? '')
    .join(',')
    .replace(/,+$/, '');
}

/**
 * Salt's `get_group_list`: the names of the user's primary group and every group listing it as
 * a member, sorted (os.getgrouplist over the local group file).
 */
export function userGroups(name: string, root = '/'): string[] {
  const primary = userByName(name, root)?.gid;
  const names = new Set<string>();
  for (const g of groupEntries(root)) if (g.gid === primary || g.members.includes(name)) names.add(g.name);
  return [...names].sort();
}

function formatInfo(e: PasswdEntry, root: string): UserInfo {
  return {
    gid: e.gid,
    groups: userGroups(e.name, root),
    home: e.dir,
    name: e.name,
    passwd: e.passwd,
    shell: e.shell,
    uid: e.uid,
    ...gecosFields(e.gecos),
  };
}

const NAME = { name: arg.string({ nonEmpty: true, description: 'User to modify' }) };
const ROOT = { root: arg.string({ optional: true, description: 'Directory to chroot into' }) };

/**
 * Salt's `user` module for Linux (useradd): reads the passwd and group files, changes accounts
 * with useradd, usermod, userdel and gpasswd, and answers as Salt does (True/False, {} for an
 * unknown user in `info`).
 */
@Module('user', {
  file: 'useradd',
  doc: 'Manage users with the useradd command',
  available: (grains) =>
    ['Linux', 'OpenBSD', 'NetBSD', 'AIX'].includes(String(grains.kernel)) ||
    'useradd execution module not loaded: either pwd python library not available or system not one of Linux, OpenBSD, NetBSD or AIX',
})
export class UserModule {
  private readonly tools: AccountTools;

  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IHost) private readonly host: IHost,
  ) {
    this.tools = new AccountTools(shell);
  }

  private get kernel(): string {
    return String(this.grains.get('kernel', ''));
  }

  /** The passwd entry of `name`, or undefined. */
  private entry(name: string, root?: string): PasswdEntry | undefined {
    return userByName(name, root ?? '/');
  }

  /** Salt's _chattrib: usermod `param value name` unless already so; True when the change shows. */
  private async chattrib(
    name: string,
    key: keyof UserInfo,
    value: string | number,
    param: string,
    root?: string,
    persist = false,
  ): Promise<boolean> {
    const pre = this.info({ name, root });
    if (!('name' in pre)) throw new CommandExecutionError(`User '${name}' does not exist`);
    if (value === pre[key]) return true;
    const cmd = [await this.tools.which('usermod'), ...AccountTools.root(root)];
    if (persist && this.kernel !== 'OpenBSD') cmd.push('-m');
    cmd.push(param, String(value), name);
    await this.tools.run(cmd);
    const post = this.info({ name: key === 'name' ? String(value) : name, root });
    return 'name' in post && post[key] === value;
  }

  /** Salt's _update_gecos: change one GECOS field with usermod -c. */
  private async updateGecos(name: string, key: GecosKey, value: unknown, root?: string): Promise<boolean> {
    const text = value === null || value === undefined ? '' : String(value);
    const e = this.entry(name, root);
    if (!e) throw new CommandExecutionError(`User '${name}' does not exist`);
    const fields = gecosFields(e.gecos);
    if (fields[key] === text) return true;
    fields[key] = text;
    await this.tools.run([await this.tools.which('usermod'), ...AccountTools.root(root), '-c', buildGecos(fields), name]);
    const after = this.entry(name, root);
    return after !== undefined && gecosFields(after.gecos)[key] === text;
  }

  @Fn({
    summary: 'Add a user to the minion',
    description:
      'gid is the name or ID of the primary group; groups the supplementary groups; createhome=False skips the home directory; ' +
      'usergroup=True creates a primary group of the same name; unique=False allows a duplicate UID; system=True creates a system account.',
    examples: ["salt '*' user.add name <uid> <gid> <groups> <home> <shell>"],
    args: {
      name: arg.string({ nonEmpty: true, description: 'Username LOGIN to add' }),
      uid: arg.any({ optional: true, description: 'User ID of the new account' }),
      gid: arg.any({ optional: true, description: 'Name or ID of the primary group of the new account' }),
      groups: arg.list({ optional: true, split: true, of: arg.string(), description: 'List of supplementary groups' }),
      home: arg.string({ optional: true, description: 'Home directory of the new account' }),
      shell: arg.string({ optional: true, description: 'Login shell of the new account' }),
      unique: arg.boolean({ default: true }),
      system: arg.boolean({ default: false }),
      fullname: arg.any({ default: '' }),
      roomnumber: arg.any({ default: '' }),
      workphone: arg.any({ default: '' }),
      homephone: arg.any({ default: '' }),
      other: arg.any({ default: '' }),
      createhome: arg.boolean({ default: true }),
      loginclass: arg.string({ optional: true }),
      nologinit: arg.boolean({ default: false }),
      ...ROOT,
      usergroup: arg.boolean({ optional: true }),
      local: arg.boolean({ default: false }),
    },
  })
  async add(a: {
    name: string;
    uid?: unknown;
    gid?: unknown;
    groups?: string[];
    home?: string;
    shell?: string;
    unique: boolean;
    system: boolean;
    fullname: unknown;
    roomnumber: unknown;
    workphone: unknown;
    homephone: unknown;
    other: unknown;
    createhome: boolean;
    loginclass?: string;
    nologinit: boolean;
    root?: string;
    usergroup?: boolean;
    local: boolean;
  }): Promise<boolean> {
    const kernel = this.kernel;
    const cmd = [await this.tools.which(a.local ? 'luseradd' : 'useradd')];
    if (a.shell) cmd.push('-s', a.shell);
    if (a.uid !== undefined && a.uid !== null && a.uid !== '') cmd.push('-u', String(a.uid));
    if (a.gid !== undefined && a.gid !== null && a.gid !== '') cmd.push('-g', String(a.gid));
    else if (a.usergroup) {
      if (!a.local) cmd.push('-U');
    } else if (a.groups?.includes(a.name) && kernel !== 'OpenBSD') {
      // With USERGROUPS_ENAB, a user listed in a group of its own name gets it as primary group.
      const defs = (await this.host.readFile('/etc/login.defs')) ?? '';
      const line = defs.split('\n').find((l) => l.slice(0, 15).includes('USERGROUPS_ENAB'));
      if (line?.includes('yes')) cmd.push('-g', String(groupByName(a.name)?.gid ?? ''));
    }
    if (a.usergroup === false) cmd.push(a.local ? '-n' : '-N');
    if (a.createhome) {
      if (!a.local) cmd.push('-m');
    } else if (kernel !== 'NetBSD' && kernel !== 'OpenBSD') cmd.push('-M');
    if (a.nologinit) cmd.push('-l');
    if (a.home !== undefined) cmd.push('-d', a.home);
    if (!a.unique && kernel !== 'AIX') cmd.push('-o');
    if (a.system && kernel !== 'NetBSD' && kernel !== 'OpenBSD') cmd.push('-r');
    if (kernel === 'OpenBSD' && a.loginclass !== undefined) cmd.push('-L', a.loginclass);
    cmd.push(a.name);
    if (a.root !== undefined && !a.local && kernel !== 'AIX') cmd.push('-R', a.root);
    if ((await this.tools.run(cmd)).retcode !== 0) return false;
    if (a.groups && a.groups.length > 0) await this.chgroups({ name: a.name, groups: a.groups, append: false, root: a.root });
    for (const key of GECOS_KEYS) if (a[key]) await this.updateGecos(a.name, key, a[key], a.root);
    return true;
  }

  @Fn({
    summary: 'Remove a user from the minion',
    description: 'remove=True removes the home directory and mail spool; force=True forces some actions that would fail otherwise.',
    examples: ["salt '*' user.delete name remove=True force=True"],
    args: {
      name: arg.string({ nonEmpty: true, description: 'Username to delete' }),
      remove: arg.boolean({ default: false }),
      force: arg.boolean({ default: false }),
      ...ROOT,
      local: arg.boolean({ default: false }),
    },
  })
  async delete(a: { name: string; remove: boolean; force: boolean; root?: string; local: boolean }): Promise<boolean> {
    const kernel = this.kernel;
    const cmd = [await this.tools.which(a.local ? 'luserdel' : 'userdel')];
    if (a.remove) cmd.push('-r');
    if (a.force && kernel !== 'OpenBSD' && kernel !== 'AIX' && !a.local) cmd.push('-f');
    cmd.push(a.name);
    if (a.root !== undefined && kernel !== 'AIX' && !a.local) cmd.push('-R', a.root);
    const res = await this.tools.run(cmd);
    if (res.retcode === 0) return true;
    // userdel exits 12 on Debian when the mail spool is missing although the user is gone.
    return (
      res.retcode === 12 &&
      this.grains.get('os_family') === 'Debian' &&
      (res.stderr.includes('var/mail') || res.stderr.includes('var/spool/mail'))
    );
  }

  @Fn({
    summary: 'Return the list of all info for all users',
    examples: ["salt '*' user.getent"],
    args: { refresh: arg.boolean({ default: false }), ...ROOT },
  })
  getent({ root }: { root?: string }): UserInfo[] {
    return passwdEntries(root ?? '/').map((e) => formatInfo(e, root ?? '/'));
  }

  @Fn({ summary: 'Return user information', examples: ["salt '*' user.info root"], args: { ...NAME, ...ROOT } })
  info({ name, root }: { name: string; root?: string }): UserInfo | Record<string, never> {
    const e = this.entry(name, root);
    return e ? formatInfo(e, root ?? '/') : {};
  }

  @Fn({ summary: 'Return a list of all users', examples: ["salt '*' user.list_users"], args: ROOT })
  list_users({ root }: { root?: string }): string[] {
    return passwdEntries(root ?? '/')
      .map((e) => e.name)
      .sort();
  }

  @Fn({
    summary: 'Return a list of groups the named user belongs to',
    examples: ["salt '*' user.list_groups foo"],
    args: { name: arg.string({ nonEmpty: true, description: 'User to get the information' }) },
  })
  list_groups({ name }: { name: string }): string[] {
    return userGroups(name);
  }

  @Fn({
    summary: 'Return the primary group of the named user',
    examples: ["salt '*' user.primary_group saltadmin"],
    args: { name: arg.string({ nonEmpty: true }) },
  })
  async primary_group({ name }: { name: string }): Promise<string> {
    // Salt's cmd.run: stderr in the output, stripped (an unknown user gives id's complaint).
    if (!(await this.shell.which('id'))) throw new CommandExecutionError("The 'id' binary was not found in $PATH.");
    const res = await this.tools.run(['id', '-g', '-n', name]);
    return `${res.stdout}${res.stderr}`.trim();
  }

  @Fn({
    summary: 'Change the uid for a named user',
    examples: ["salt '*' user.chuid foo 4376"],
    args: { ...NAME, uid: arg.integer({ description: 'New UID for the user account' }), ...ROOT },
  })
  chuid({ name, uid, root }: { name: string; uid: number; root?: string }): Promise<boolean> {
    return this.chattrib(name, 'uid', uid, '-u', root);
  }

  @Fn({
    summary: 'Change the default group of the user',
    examples: ["salt '*' user.chgid foo 4376"],
    args: { ...NAME, gid: arg.integer({ description: 'Force use GID as new primary group' }), ...ROOT },
  })
  chgid({ name, gid, root }: { name: string; gid: number; root?: string }): Promise<boolean> {
    return this.chattrib(name, 'gid', gid, '-g', root);
  }

  @Fn({
    summary: 'Change the default shell of the user',
    examples: ["salt '*' user.chshell foo /bin/zsh"],
    args: { ...NAME, shell: arg.string({ nonEmpty: true, description: 'New login shell for the user account' }), ...ROOT },
  })
  chshell({ name, shell, root }: { name: string; shell: string; root?: string }): Promise<boolean> {
    return this.chattrib(name, 'shell', shell, '-s', root);
  }

  @Fn({
    summary: 'Change the home directory of the user; persist=True moves the files to the new home directory',
    examples: ["salt '*' user.chhome foo /home/users/foo True"],
    args: {
      ...NAME,
      home: arg.string({ nonEmpty: true, description: 'New home directory for the user account' }),
      persist: arg.boolean({ default: false }),
      ...ROOT,
    },
  })
  chhome({ name, home, persist, root }: { name: string; home: string; persist: boolean; root?: string }): Promise<boolean> {
    return this.chattrib(name, 'home', home, '-d', root, persist);
  }

  @Fn({
    summary: "Change the groups to which this user belongs; append=True adds them to the user's groups",
    examples: ["salt '*' user.chgroups foo wheel,root", "salt '*' user.chgroups foo wheel,root append=True"],
    args: {
      ...NAME,
      groups: arg.list({ split: true, of: arg.string(), description: 'Groups to set for the user (a list or comma-separated)' }),
      append: arg.boolean({ default: false }),
      ...ROOT,
    },
  })
  async chgroups({ name, groups, append, root }: { name: string; groups: string[]; append: boolean; root?: string }): Promise<boolean> {
    const current = new Set(userGroups(name, root ?? '/'));
    const wanted = new Set(groups);
    if (current.size === wanted.size && [...wanted].every((g) => current.has(g))) return true;
    const kernel = this.kernel;
    const cmd = [await this.tools.which('usermod')];
    if (kernel !== 'OpenBSD') {
      if (append && kernel !== 'AIX') cmd.push('-a');
      cmd.push('-G');
    } else cmd.push(append ? '-G' : '-S');
    if (append && kernel === 'AIX') cmd.push(`${[...current].join(',')},${groups.join(',')}`, name);
    else cmd.push(groups.join(','), name);
    if (root !== undefined && kernel !== 'AIX') cmd.push('-R', root);
    const res = await this.tools.run(cmd);
    // Groups only a directory service knows: usermod cannot see them, gpasswd can.
    if (kernel !== 'OpenBSD' && kernel !== 'AIX' && res.retcode !== 0 && res.stderr.includes('not found in')) {
      let ok = true;
      for (const g of groups) if ((await this.tools.run(['gpasswd', '-a', name, g])).retcode !== 0) ok = false;
      return ok;
    }
    return res.retcode === 0;
  }

  @Fn({
    summary: "Change the user's Full Name",
    examples: ['salt \'*\' user.chfullname foo "Foo Bar"'],
    args: { ...NAME, fullname: arg.any({ description: 'GECOS field for the full name' }), ...ROOT },
  })
  chfullname({ name, fullname, root }: { name: string; fullname: unknown; root?: string }): Promise<boolean> {
    return this.updateGecos(name, 'fullname', fullname, root);
  }

  @Fn({
    summary: "Change the user's Room Number",
    examples: ["salt '*' user.chroomnumber foo 123"],
    args: { ...NAME, roomnumber: arg.any({ description: 'GECOS field for the room number' }), ...ROOT },
  })
  chroomnumber({ name, roomnumber, root }: { name: string; roomnumber: unknown; root?: string }): Promise<boolean> {
    return this.updateGecos(name, 'roomnumber', roomnumber, root);
  }

  @Fn({
    summary: "Change the user's Work Phone",
    examples: ["salt '*' user.chworkphone foo 7735550123"],
    args: { ...NAME, workphone: arg.any({ description: 'GECOS field for the work phone' }), ...ROOT },
  })
  chworkphone({ name, workphone, root }: { name: string; workphone: unknown; root?: string }): Promise<boolean> {
    return this.updateGecos(name, 'workphone', workphone, root);
  }

  @Fn({
    summary: "Change the user's Home Phone",
    examples: ["salt '*' user.chhomephone foo 7735551234"],
    args: { ...NAME, homephone: arg.any({ description: 'GECOS field for the home phone' }), ...ROOT },
  })
  chhomephone({ name, homephone, root }: { name: string; homephone: unknown; root?: string }): Promise<boolean> {
    return this.updateGecos(name, 'homephone', homephone, root);
  }

  @Fn({
    summary: "Change the user's other GECOS attribute",
    examples: ["salt '*' user.chother foobar"],
    args: { ...NAME, other: arg.any({ description: 'GECOS field for other information' }), ...ROOT },
  })
  chother({ name, other, root }: { name: string; other: unknown; root?: string }): Promise<boolean> {
    return this.updateGecos(name, 'other', other, root);
  }

  @Fn({
    summary: 'Change the default login class of the user (OpenBSD only; False elsewhere)',
    examples: ["salt '*' user.chloginclass foo staff"],
    args: { ...NAME, loginclass: arg.string(), ...ROOT },
  })
  async chloginclass({ name, loginclass, root }: { name: string; loginclass: string; root?: string }): Promise<boolean> {
    if (this.kernel !== 'OpenBSD') return false;
    if (loginclass === (await this.get_loginclass({ name }))) return true;
    await this.tools.run([await this.tools.which('usermod'), '-L', loginclass, name, ...AccountTools.root(root)]);
    return (await this.get_loginclass({ name })) === loginclass;
  }

  @Fn({
    summary: 'Get the login class of the user (OpenBSD only; False elsewhere)',
    examples: ["salt '*' user.get_loginclass foo"],
    args: { name: arg.string({ nonEmpty: true }) },
  })
  async get_loginclass({ name }: { name: string }): Promise<string | false> {
    if (this.kernel !== 'OpenBSD') return false;
    const out = (await this.tools.run(['userinfo', name])).stdout;
    const line = out.split('\n').find((l) => l.startsWith('class'));
    return line?.split(/\s+/, 2)[1] ?? '';
  }

  @Fn({
    summary: 'Change the username for a named user',
    examples: ["salt '*' user.rename name new_name"],
    args: { ...NAME, new_name: arg.string({ nonEmpty: true, description: 'New value of the login name' }), ...ROOT },
  })
  async rename({ name, new_name, root }: { name: string; new_name: string; root?: string }): Promise<boolean> {
    if (this.entry(new_name, root)) throw new CommandExecutionError(`User '${new_name}' already exists`);
    return this.chattrib(name, 'name', new_name, '-l', root);
  }
}
