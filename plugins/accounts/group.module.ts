import { Fn, IGrains, IShell, Module, arg, groupByName, groupEntries, inject, type GroupEntry } from 'brine/plugin';
import { AccountTools } from './account-tools';

/** What Salt's groupadd module answers for one group (`_format_info`). */
export interface GroupInfo {
  name: string;
  passwd: string;
  gid: number;
  members: string[];
}

const format = (g: GroupEntry): GroupInfo => ({ name: g.name, passwd: g.passwd, gid: g.gid, members: g.members });

const NAME = { name: arg.string({ nonEmpty: true, description: 'Name of the group' }) };
const ROOT = { root: arg.string({ optional: true, description: 'Directory to chroot into' }) };

/**
 * Salt's `group` module for Linux (groupadd): reads the group file, changes groups with
 * groupadd, groupdel, groupmod and gpasswd, and answers as Salt does.
 */
@Module('group', {
  file: 'groupadd',
  doc: 'Manage groups on Linux, OpenBSD and NetBSD',
  available: (grains) =>
    ['Linux', 'OpenBSD', 'NetBSD'].includes(String(grains.kernel)) ||
    'The groupadd execution module cannot be loaded:  only available on Linux, OpenBSD and NetBSD',
})
export class GroupModule {
  private readonly tools: AccountTools;

  constructor(
    @inject(IShell) shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
  ) {
    this.tools = new AccountTools(shell);
  }

  private get kernel(): string {
    return String(this.grains.get('kernel', ''));
  }

  @Fn({
    summary: 'Add the specified group',
    description: 'gid: the ID of the new group; system=True creates a system group; non_unique=True allows a duplicate GID.',
    examples: ["salt '*' group.add foo 3456"],
    args: {
      ...NAME,
      gid: arg.integer({ optional: true, description: 'Use GID for the new group' }),
      system: arg.boolean({ default: false }),
      ...ROOT,
      non_unique: arg.boolean({ default: false }),
      local: arg.boolean({ default: false }),
    },
  })
  async add(a: { name: string; gid?: number; system: boolean; root?: string; non_unique: boolean; local: boolean }): Promise<boolean> {
    const cmd = [await this.tools.which(a.local ? 'lgroupadd' : 'groupadd')];
    if (a.gid) {
      cmd.push('-g', String(a.gid));
      if (a.non_unique && !a.local) cmd.push('-o');
    }
    if (a.system && this.kernel !== 'OpenBSD') cmd.push('-r');
    if (a.root !== undefined && !a.local) cmd.push('-R', a.root);
    cmd.push(a.name);
    return (await this.tools.run(cmd)).retcode === 0;
  }

  @Fn({
    summary: 'Remove the named group',
    examples: ["salt '*' group.delete foo"],
    args: { ...NAME, ...ROOT, local: arg.boolean({ default: false }) },
  })
  async delete({ name, root, local }: { name: string; root?: string; local: boolean }): Promise<boolean> {
    const cmd = [await this.tools.which(local ? 'lgroupdel' : 'groupdel')];
    if (root !== undefined && !local) cmd.push('-R', root);
    cmd.push(name);
    return (await this.tools.run(cmd)).retcode === 0;
  }

  @Fn({ summary: 'Return information about a group', examples: ["salt '*' group.info foo"], args: { ...NAME, ...ROOT } })
  info({ name, root }: { name: string; root?: string }): GroupInfo | Record<string, never> {
    const g = groupByName(name, root ?? '/');
    return g ? format(g) : {};
  }

  @Fn({
    summary: 'Return info on all groups',
    examples: ["salt '*' group.getent"],
    args: { refresh: arg.boolean({ default: false }), ...ROOT },
  })
  getent({ root }: { root?: string }): GroupInfo[] {
    return groupEntries(root ?? '/').map(format);
  }

  @Fn({
    summary: 'Change the gid for a named group',
    examples: ["salt '*' group.chgid foo 4376"],
    args: {
      ...NAME,
      gid: arg.integer({ description: 'Change the group ID to GID' }),
      ...ROOT,
      non_unique: arg.boolean({ default: false }),
    },
  })
  async chgid({ name, gid, root, non_unique }: { name: string; gid: number; root?: string; non_unique: boolean }): Promise<boolean> {
    const pre = groupByName(name, root ?? '/');
    if (!pre) return false;
    if (pre.gid === gid) return true;
    await this.tools.run([await this.tools.which('groupmod'), ...AccountTools.root(root), non_unique ? '-og' : '-g', String(gid), name]);
    return groupByName(name, root ?? '/')?.gid === gid;
  }

  /** SUSE 11's usermod/groupmod take -A/-R instead of gpasswd. */
  private get onSuse11(): boolean {
    return this.grains.get('os_family') === 'Suse' && String(this.grains.get('osmajorrelease')) === '11';
  }

  @Fn({
    summary: 'Add a user in the group',
    examples: ["salt '*' group.adduser foo bar"],
    args: { ...NAME, username: arg.string({ nonEmpty: true, description: 'Username to add to the group' }), ...ROOT },
  })
  async adduser({ name, username, root }: { name: string; username: string; root?: string }): Promise<boolean> {
    let cmd: string[];
    if (this.kernel === 'Linux') {
      cmd = this.onSuse11
        ? [await this.tools.which('usermod'), '-A', name, username]
        : [await this.tools.which('gpasswd'), '--add', username, name];
      if (root !== undefined) cmd.push('--root', root);
    } else cmd = [await this.tools.which('usermod'), '-G', name, username, ...AccountTools.root(root)];
    return (await this.tools.run(cmd)).retcode === 0;
  }

  @Fn({
    summary: 'Remove a user from the group',
    examples: ["salt '*' group.deluser foo bar"],
    args: { ...NAME, username: arg.string({ nonEmpty: true, description: 'Username to delete from the group' }), ...ROOT },
  })
  async deluser({ name, username, root }: { name: string; username: string; root?: string }): Promise<boolean> {
    // Salt looks the group up without root=, and an unknown group counts as done.
    const g = groupByName(name);
    if (!g || !g.members.includes(username)) return true;
    if (this.kernel === 'Linux') {
      const cmd = this.onSuse11
        ? [await this.tools.which('usermod'), '-R', name, username]
        : [await this.tools.which('gpasswd'), '--del', username, name];
      if (root !== undefined) cmd.push('--root', root);
      return (await this.tools.run(cmd)).retcode === 0;
    }
    if (this.kernel === 'OpenBSD') {
      const out = (await this.tools.run(['id', '-Gn', username])).stdout;
      const keep = out.split(/\s+/).filter((x) => x && x !== name);
      return (await this.tools.run([await this.tools.which('usermod'), '-S', keep.join(','), username])).retcode === 0;
    }
    return false;
  }

  @Fn({
    summary: 'Replace members of the group with a provided list',
    examples: ["salt '*' group.members foo 'user1,user2,user3,...'"],
    args: {
      ...NAME,
      members_list: arg.list({ split: true, of: arg.string(), description: 'The new members of the group (comma-separated or a list)' }),
      ...ROOT,
    },
  })
  async members({ name, members_list, root }: { name: string; members_list: string[]; root?: string }): Promise<boolean> {
    const list = members_list.join(',');
    if (this.kernel !== 'Linux') return false;
    if (this.onSuse11) {
      const groupmod = await this.tools.which('groupmod');
      for (const old of groupByName(name)?.members ?? []) await this.tools.run([groupmod, '-R', old, name]);
    }
    const cmd = this.onSuse11
      ? [await this.tools.which('groupmod'), '-A', list, name]
      : [await this.tools.which('gpasswd'), '--members', list, name];
    if (root !== undefined) cmd.push('--root', root);
    return (await this.tools.run(cmd)).retcode === 0;
  }
}
