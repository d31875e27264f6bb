import { arg, inject, ISalt, pyStr, State, StateModule, type StateContext, type StateReturn } from 'brine/plugin';
import type { GroupInfo } from './group.module';

type Changes = Record<string, unknown>;

const USERS = arg.list({ optional: true, split: true, of: arg.string() });

/**
 * Salt's `group` states (salt/states/group.py) over the `group` execution module: present with
 * gid, members or addusers/delusers, and absent, with Salt's comments and changes.
 */
@StateModule('group', {
  available: (grains) => ['Linux', 'OpenBSD', 'NetBSD'].includes(String(grains.kernel)) || 'the group states need the group module',
})
export class GroupStates {
  constructor(@inject(ISalt) private readonly salt: ISalt) {}

  private async info(name: string, local: boolean): Promise<GroupInfo | Record<string, never>> {
    return (await this.salt.call('group.info', [name], local ? { root: '/' } : {})) as GroupInfo | Record<string, never>;
  }

  /** Salt's _changes: what differs from the wanted group, false when it does not exist. */
  private async changes(
    name: string,
    a: { gid?: unknown; addusers?: string[]; delusers?: string[]; members?: string[]; local: boolean },
  ): Promise<Changes | false> {
    const lgrp = await this.info(name, a.local);
    if (!('name' in lgrp)) return false;
    const change: Changes = {};
    if (a.gid !== undefined && a.gid !== null && a.gid !== '' && a.gid !== 0) {
      const gid = Number(a.gid);
      if (!Number.isInteger(gid)) return { result: false, comment: 'Invalid gid' };
      if (lgrp.gid !== gid) change.gid = gid;
    }
    const differs = (want: string[]): boolean => lgrp.members.some((m) => !want.includes(m)) || want.some((m) => !lgrp.members.includes(m));
    if (a.members !== undefined && a.members.length === 0) {
      if (differs([])) change.delusers = [...new Set(lgrp.members)];
    } else if (a.members && differs(a.members)) change.members = a.members;
    const add = (a.addusers ?? []).filter((u) => !lgrp.members.includes(u));
    if (add.length > 0) change.addusers = add;
    const del = (a.delusers ?? []).filter((u) => lgrp.members.includes(u));
    if (del.length > 0) change.delusers = del;
    return change;
  }

  @State({
    summary: 'Ensure that a group is present',
    description:
      'gid: the group id; system: a system group (groupadd -r); addusers/delusers: members to add or remove; ' +
      'members: the complete member list (not with addusers/delusers); non_unique: allow a duplicate gid.',
    examples: ['cheese:\n  group.present:\n    - gid: 7648\n    - members:\n      - foo'],
    args: {
      name: arg.string(),
      gid: arg.any({ optional: true }),
      system: arg.boolean({ default: false }),
      addusers: USERS,
      delusers: USERS,
      members: USERS,
      non_unique: arg.boolean({ default: false }),
      local: arg.boolean({ default: false }),
    },
  })
  async present(
    a: {
      name: string;
      gid?: unknown;
      system: boolean;
      addusers?: string[];
      delusers?: string[];
      members?: string[];
      non_unique: boolean;
      local: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const { name } = a;
    const ret: StateReturn = { name, changes: {}, result: true, comment: `Group ${name} is present and up to date` };
    if (a.members !== undefined && (a.addusers !== undefined || a.delusers !== undefined)) {
      ret.result = null;
      ret.comment = 'Error: Conflicting options "members" with "addusers" and/or "delusers" can not be used together. ';
      return ret;
    }
    if (a.addusers && a.delusers && a.addusers.some((u) => a.delusers!.includes(u))) {
      ret.result = null;
      ret.comment = 'Error. Same user(s) can not be added and deleted simultaneously';
      return ret;
    }
    let changes = await this.changes(name, a);
    if (changes && 'result' in changes) return { ...ret, ...(changes as Partial<StateReturn>) };
    if (changes && Object.keys(changes).length > 0) {
      ret.comment = 'The following group attributes are set to be changed:\n';
      for (const [key, val] of Object.entries(changes)) ret.comment += `${key}: ${pyStr(val)}\n`;
      if (ctx.test) return { ...ret, result: null };
      for (const [key, val] of Object.entries(changes)) {
        if (key === 'gid') await this.salt.call('group.chgid', [name, a.gid], { non_unique: a.non_unique });
        else if (key === 'addusers') for (const u of val as string[]) await this.salt.call('group.adduser', [name, u]);
        else if (key === 'delusers') for (const u of val as string[]) await this.salt.call('group.deluser', [name, u]);
        else if (key === 'members') await this.salt.call('group.members', [name, a.members!.join(',')]);
      }
      changes = await this.changes(name, a);
      if (changes && Object.keys(changes).length > 0) {
        ret.result = false;
        ret.comment += 'Some changes could not be applied';
        ret.changes = { Failed: changes };
      } else ret.changes = { Final: 'All changes applied successfully' };
    }
    if (changes !== false) return ret;

    // The group is not there: make it.
    if (ctx.test) return { ...ret, result: null, comment: `Group ${name} set to be added` };
    if (a.gid !== undefined && a.gid !== null && !a.non_unique) {
      const taken = ((await this.salt.call('group.getent')) as GroupInfo[]).find((g) => g.gid === Number(a.gid));
      if (taken)
        return {
          ...ret,
          result: false,
          comment: `Group ${name} is not present but gid ${String(a.gid)} is already taken by group ${taken.name}`,
        };
    }
    const added = await this.salt.call('group.add', [name], {
      gid: a.gid ?? undefined,
      system: a.system,
      non_unique: a.non_unique,
      local: a.local,
    });
    if (!added) return { ...ret, result: false, comment: `Failed to create new group ${name}` };
    const members = a.addusers?.length ? a.addusers : a.members?.length ? a.members : null;
    if (members) await this.salt.call('group.members', [name, members.join(',')]);
    ret.comment = `New group ${name} created`;
    ret.changes = (await this.info(name, a.local)) as Changes;
    const left = await this.changes(name, a);
    if (left && Object.keys(left).length > 0) {
      ret.result = false;
      ret.comment = `Group ${name} has been created but, some changes could not be applied`;
      ret.changes = { Failed: left };
    }
    return ret;
  }

  @State({
    summary: 'Ensure that the named group is absent',
    examples: ['db_admin:\n  group.absent'],
    args: { name: arg.string(), local: arg.boolean({ default: false }) },
  })
  async absent({ name, local }: { name: string; local: boolean }, ctx: StateContext): Promise<StateReturn> {
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (!('name' in (await this.info(name, local)))) return { ...ret, comment: 'Group not present' };
    if (ctx.test) return { ...ret, result: null, comment: `Group ${name} is set for removal` };
    if (await this.salt.call('group.delete', [name], { local }))
      return { ...ret, changes: { [name]: '' }, comment: `Removed group ${name}` };
    return { ...ret, result: false, comment: `Failed to remove group ${name}` };
  }
}
