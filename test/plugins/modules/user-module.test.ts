import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';

/** The account files of a small system below a temporary root (what `root=` reads). */
function accountRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'brine-accounts-'));
  mkdirSync(join(dir, 'etc'));
  writeFileSync(
    join(dir, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice Liddell,12,555-1,555-2,rabbit,hole:/home/alice:/bin/zsh\nbob:x:1001:100::/home/bob:/bin/sh\n',
  );
  writeFileSync(join(dir, 'etc/group'), 'root:x:0:\nusers:x:100:alice\nalice:x:1000:\nwheel:x:10:alice,bob\n');
  writeFileSync(join(dir, 'etc/shadow'), 'root:*:19000:0:99999:7:::\nalice:$6$s$h:19500:1:90:7:30:20000:\nbob:!:19501::::::\n');
  return dir;
}

const ROOT_ONLY = process.getuid?.() === 0;

describe('user, group, shadow on account files below root=', () => {
  let h: Harness;
  let root: string;
  beforeAll(async () => {
    root = accountRoot();
    h = await createHarness({ grains: { kernel: 'Linux' } });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("user.info, getent, list_users answer Salt's shapes; an unknown user is {}", async () => {
    expect((await h.call('user.info', ['alice'], { root })).return).toEqual({
      gid: 1000,
      groups: ['alice', 'users', 'wheel'],
      home: '/home/alice',
      name: 'alice',
      passwd: 'x',
      shell: '/bin/zsh',
      uid: 1000,
      fullname: 'Alice Liddell',
      roomnumber: '12',
      workphone: '555-1',
      homephone: '555-2',
      other: 'rabbit,hole',
    });
    expect((await h.call('user.info', ['nobody-here'], { root })).return).toEqual({});
    expect((await h.call('user.list_users', [], { root })).return).toEqual(['alice', 'bob', 'root']);
    const all = (await h.call('user.getent', [], { root })).return as { name: string; groups: string[]; fullname: string }[];
    expect(all.map((u) => [u.name, u.groups, u.fullname])).toEqual([
      ['root', ['root'], 'root'],
      ['alice', ['alice', 'users', 'wheel'], 'Alice Liddell'],
      ['bob', ['users', 'wheel'], ''],
    ]);
  });

  it('group.info, getent; shadow.info, list_users (empty fields for an unknown user)', async () => {
    expect((await h.call('group.info', ['wheel'], { root })).return).toEqual({
      name: 'wheel',
      passwd: 'x',
      gid: 10,
      members: ['alice', 'bob'],
    });
    expect((await h.call('group.info', ['nope'], { root })).return).toEqual({});
    expect(((await h.call('group.getent', [], { root })).return as { name: string }[]).map((g) => g.name)).toEqual([
      'root',
      'users',
      'alice',
      'wheel',
    ]);
    expect((await h.call('shadow.info', ['alice'], { root })).return).toEqual({
      name: 'alice',
      passwd: '$6$s$h',
      lstchg: 19500,
      min: 1,
      max: 90,
      warn: 7,
      inact: 30,
      expire: 20000,
    });
    expect((await h.call('shadow.info', ['bob'], { root })).return).toMatchObject({ passwd: '!', min: -1, expire: -1 });
    expect((await h.call('shadow.info', ['nope'], { root })).return).toEqual({
      name: '',
      passwd: '',
      lstchg: '',
      min: '',
      max: '',
      warn: '',
      inact: '',
      expire: '',
    });
    expect((await h.call('shadow.list_users', [], { root })).return).toEqual(['alice', 'bob', 'root']);
  });

  it("a changing function on an unknown user is Salt's error", async () => {
    expect(await h.call('user.chshell', ['nobody-here', '/bin/sh'], { root })).toMatchObject({
      return: "ERROR: User 'nobody-here' does not exist",
      retcode: 1,
    });
    expect(await h.call('user.rename', ['alice', 'bob'], { root })).toMatchObject({
      return: "ERROR: User 'bob' already exists",
      retcode: 1,
    });
  });

  it('every function is documented for sys.doc', async () => {
    const docs = (await h.call('sys.doc', ['user.', 'group.', 'shadow.'])).return as Record<string, string>;
    for (const fn of [
      'user.add',
      'user.delete',
      'user.info',
      'user.chshell',
      'user.chhome',
      'user.chgroups',
      'user.list_users',
      'user.getent',
    ])
      expect(docs[fn]).toMatch(/CLI Example/);
    for (const fn of ['group.add', 'group.delete', 'group.info', 'group.getent', 'shadow.info', 'shadow.set_password'])
      expect(docs[fn]).toBeTruthy();
  });

  it('the modules are unavailable off Linux, saying why', async () => {
    const off = await createHarness({ grains: { kernel: 'Windows' } });
    expect((await off.call('user.info', ['root'])).return).toBe(
      "'user' __virtual__ returned False: useradd execution module not loaded: either pwd python library not available or system not one of Linux, OpenBSD, NetBSD or AIX",
    );
    expect((await off.call('group.info', ['root'])).return).toMatch(/^'group' __virtual__ returned False: The groupadd execution module/);
  });

  it('shadow.gen_password is crypt(3) of the algorithm (values of Python crypt.crypt)', async () => {
    const real = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux' } });
    expect((await real.call('shadow.gen_password', ['brine'], { crypt_salt: 'abcdefgh' })).return).toBe(
      '$6$abcdefgh$TztnLLBCgHSZ74jCSa5QJP4.utnWHbf784.Bc5/2c6XIZ7WuCOznZrl0WrNhZaqqRvG3SXG5Rsvfzb.f36IAh1',
    );
    expect((await real.call('shadow.gen_password', ['brine'], { crypt_salt: 'abcdefgh', algorithm: 'md5' })).return).toBe(
      '$1$abcdefgh$uUHhW8u3IaR.finy4hLHn0',
    );
    expect((await real.call('shadow.gen_password', ['brine'])).return).toMatch(/^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$/);
  });
});

/** Real accounts on this machine (tests run as root in a container), with names no one else uses. */
describe.skipIf(!ROOT_ONLY)('user, group, shadow on real accounts', () => {
  let h: Harness;
  const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  const user = `bru${tag}`;
  const renamed = `brr${tag}`;
  const group = `brg${tag}`;
  const group2 = `brh${tag}`;
  const home = join(tmpdir(), `brine-home-${tag}`);

  beforeAll(async () => {
    h = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux', os_family: 'Debian', os: 'Debian' } });
  });
  afterAll(() => {
    for (const [cmd, name] of [
      ['userdel', user],
      ['userdel', renamed],
      ['groupdel', user],
      ['groupdel', renamed],
      ['groupdel', group],
      ['groupdel', group2],
    ]) {
      try {
        execFileSync(cmd, [name], { stdio: 'ignore' });
      } catch {
        // Already gone: the test removed it.
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('group.add, user.add with groups and GECOS, chshell, chhome, chgroups, chfullname, group.adduser/deluser/members', async () => {
    expect((await h.call('group.add', [group])).return).toBe(true);
    expect((await h.call('group.add', [group])).return).toBe(false);
    expect((await h.call('group.add', [group2], { system: true })).return).toBe(true);
    expect((await h.call('user.add', [user], { groups: group, fullname: 'Brine Test', shell: '/bin/sh', createhome: false })).return).toBe(
      true,
    );
    expect((await h.call('user.info', [user])).return).toMatchObject({
      name: user,
      shell: '/bin/sh',
      fullname: 'Brine Test',
      groups: [group, user].sort(),
    });
    expect((await h.call('user.primary_group', [user])).return).toBe(user);
    expect((await h.call('user.list_users')).return).toContain(user);
    expect(((await h.call('user.getent')).return as { name: string }[]).some((u) => u.name === user)).toBe(true);

    expect((await h.call('user.chshell', [user, '/bin/bash'])).return).toBe(true);
    expect((await h.call('user.chhome', [user, home])).return).toBe(true);
    expect((await h.call('user.chgroups', [user, group2], { append: true })).return).toBe(true);
    expect((await h.call('user.list_groups', [user])).return).toEqual([group, group2, user].sort());
    expect((await h.call('user.chgroups', [user, `${group2}`])).return).toBe(true);
    expect((await h.call('user.chfullname', [user, 'Other Name'])).return).toBe(true);
    expect((await h.call('user.chroomnumber', [user, '42'])).return).toBe(true);
    expect((await h.call('user.info', [user])).return).toMatchObject({
      shell: '/bin/bash',
      home,
      groups: [group2, user].sort(),
      fullname: 'Other Name',
      roomnumber: '42',
    });

    expect((await h.call('group.adduser', [group, user])).return).toBe(true);
    expect((await h.call('group.info', [group])).return).toMatchObject({ name: group, members: [user] });
    expect((await h.call('group.deluser', [group, user])).return).toBe(true);
    expect((await h.call('group.members', [group2, `${user},root`])).return).toBe(true);
    expect((await h.call('group.info', [group2])).return).toMatchObject({ members: [user, 'root'] });
    const gid = ((await h.call('group.info', [group])).return as { gid: number }).gid;
    expect((await h.call('group.chgid', [group, gid + 7])).return).toBe(true);
    expect((await h.call('group.info', [group])).return).toMatchObject({ gid: gid + 7 });
  });

  it('shadow: set_password, lock/unlock, aging with chage, del_password', async () => {
    const hash = '$6$abcdefgh$TztnLLBCgHSZ74jCSa5QJP4.utnWHbf784.Bc5/2c6XIZ7WuCOznZrl0WrNhZaqqRvG3SXG5Rsvfzb.f36IAh1';
    expect((await h.call('shadow.set_password', [user, hash])).return).toBe(true);
    expect((await h.call('shadow.info', [user])).return).toMatchObject({
      name: user,
      passwd: hash,
      lstchg: Math.floor(Date.now() / 86_400_000),
    });
    expect((await h.call('shadow.lock_password', [user])).return).toBe(true);
    expect(((await h.call('shadow.info', [user])).return as { passwd: string }).passwd).toBe(`!${hash}`);
    expect((await h.call('shadow.unlock_password', [user])).return).toBe(true);
    expect((await h.call('shadow.set_maxdays', [user, 90])).return).toBe(true);
    expect((await h.call('shadow.set_mindays', [user, 2])).return).toBe(true);
    expect((await h.call('shadow.set_warndays', [user, 5])).return).toBe(true);
    expect((await h.call('shadow.set_inactdays', [user, 3])).return).toBe(true);
    expect((await h.call('shadow.set_expire', [user, '2030-01-01'])).return).toBe(true);
    expect((await h.call('shadow.info', [user])).return).toMatchObject({ max: 90, min: 2, warn: 5, inact: 3, expire: 21915 });
    expect((await h.call('shadow.del_password', [user])).return).toBe(true);
    expect((await h.call('shadow.set_password', ['brine-no-such-user', hash])).return).toBe(false);
  });

  it('user.rename, chuid, delete; group.delete', async () => {
    expect((await h.call('user.rename', [user, renamed])).return).toBe(true);
    expect((await h.call('user.info', [user])).return).toEqual({});
    const uid = ((await h.call('user.info', [renamed])).return as { uid: number }).uid;
    expect((await h.call('user.chuid', [renamed, uid + 3])).return).toBe(true);
    expect((await h.call('user.delete', [renamed])).return).toBe(true);
    expect((await h.call('user.delete', [renamed])).return).toBe(false);
    expect((await h.call('user.info', [renamed])).return).toEqual({});
    for (const g of [group, group2, user]) expect((await h.call('group.delete', [g])).return).toBe(true);
    expect((await h.call('group.info', [group])).return).toEqual({});
  });
});

/** The user and group states (Salt's salt/states/user.py, group.py) on real accounts. */
describe.skipIf(!ROOT_ONLY)('user and group states on real accounts', () => {
  let h: Harness;
  const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  const user = `bsu${tag}`;
  const group = `bsg${tag}`;
  type Ran = { result: boolean | null; comment: string; changes: Record<string, unknown> };
  const run = async (fun: string, name: string, kwargs: Record<string, unknown> = {}): Promise<Ran> => {
    const res = await h.call('state.single', [fun, name], kwargs);
    return Object.values(res.return as Record<string, Ran>)[0];
  };

  beforeAll(async () => {
    h = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux', os_family: 'Debian', os: 'Debian' }, pillar: {} });
  });
  afterAll(() => {
    for (const [cmd, name] of [
      ['userdel', user],
      ['groupdel', user],
      ['groupdel', group],
    ]) {
      try {
        execFileSync(cmd, [name], { stdio: 'ignore' });
      } catch {
        // Already gone: the test removed it.
      }
    }
  });

  it('group.present creates, then is up to date; test=True only says what it would do', async () => {
    expect(await run('group.present', group, { test: true })).toMatchObject({
      result: null,
      comment: `Group ${group} set to be added`,
      changes: {},
    });
    const made = await run('group.present', group);
    expect(made).toMatchObject({ result: true, comment: `New group ${group} created`, changes: { name: group, members: [] } });
    expect(await run('group.present', group)).toMatchObject({
      result: true,
      comment: `Group ${group} is present and up to date`,
      changes: {},
    });
  });

  it('user.present creates with groups, then changes shell and fullname; refuses missing groups and a uid change', async () => {
    expect(await run('user.present', user, { groups: ['nope-no-group'] })).toMatchObject({
      result: false,
      comment: 'The following group(s) are not present: nope-no-group',
    });
    const made = await run('user.present', user, { groups: [group], shell: '/bin/sh', fullname: 'State Test', createhome: false });
    expect(made).toMatchObject({
      result: true,
      comment: `New user ${user} created`,
      changes: { name: user, shell: '/bin/sh', fullname: 'State Test', home: '', groups: [group, user].sort() },
    });
    const same = { groups: [group], shell: '/bin/sh', fullname: 'State Test', createhome: false };
    expect(await run('user.present', user, same)).toMatchObject({
      result: true,
      comment: `User ${user} is present and up to date`,
      changes: {},
    });
    expect(await run('user.present', user, { ...same, shell: '/bin/bash', test: true })).toMatchObject({
      result: null,
      comment: 'The following user attributes are set to be changed:\nshell: /bin/bash\n',
    });
    expect(await run('user.present', user, { ...same, shell: '/bin/bash', fullname: 'Other' })).toMatchObject({
      result: true,
      comment: `Updated user ${user}`,
      changes: { shell: '/bin/bash', fullname: 'Other' },
    });
    const uid = ((await h.call('user.info', [user])).return as { uid: number }).uid;
    const refused = await run('user.present', user, { ...same, uid: uid + 1 });
    expect(refused.result).toBe(false);
    expect(refused.comment).toContain(`Changing uid (${uid} -> ${uid + 1}) not permitted, set allow_uid_change to True`);
  });

  it("user.present never shows a password: Salt's XXX-REDACTED-XXX in test mode and in changes", async () => {
    const hash = '$6$brinetest$' + 'x'.repeat(86);
    const same = { groups: [group], createhome: false };
    expect(await run('user.present', user, { ...same, password: hash, test: true })).toMatchObject({
      result: null,
      comment: 'The following user attributes are set to be changed:\npasswd: XXX-REDACTED-XXX\n',
    });
    const changed = await run('user.present', user, { ...same, password: hash });
    expect(changed).toMatchObject({ result: true, comment: `Updated user ${user}`, changes: { passwd: 'XXX-REDACTED-XXX' } });
    expect(((await h.call('shadow.info', [user])).return as { passwd: string }).passwd).toBe(hash);
    expect(await run('user.present', user, { ...same, password: hash })).toMatchObject({ result: true, changes: {} });
  });

  it('group.present with members; user.absent removes the user and its own group; group.absent', async () => {
    expect(await run('group.present', group, { members: [user, 'root'] })).toMatchObject({
      result: true,
      changes: { Final: 'All changes applied successfully' },
    });
    expect((await h.call('group.info', [group])).return).toMatchObject({ members: [user, 'root'] });
    expect(await run('user.absent', user, { test: true })).toMatchObject({ result: null, comment: `User ${user} set for removal` });
    expect(await run('user.absent', user)).toMatchObject({
      result: true,
      comment: `Removed user ${user}`,
      changes: { [user]: 'removed', [`${user} group`]: 'removed' },
    });
    expect(await run('user.absent', user)).toMatchObject({ result: true, comment: `User ${user} is not present`, changes: {} });
    expect(await run('group.absent', group)).toMatchObject({ result: true, comment: `Removed group ${group}`, changes: { [group]: '' } });
    expect(await run('group.absent', group)).toMatchObject({ result: true, comment: 'Group not present' });
  });
});
