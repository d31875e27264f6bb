import { describe, expect, it } from 'vitest';
import { authCheck, fillAuthList, matchCheck, sortedPermissions, specCheck, sumPermissions } from '../../src/api/acl';
import { pyRepr } from '../../src/core/pycompat';

/** web1 and web2 are web servers, db1 a database: what the master's target resolution answers. */
const resolve = (tgt: string | string[], tgtType: string): Set<string> => {
  const all = ['web1', 'web2', 'db1'];
  if (Array.isArray(tgt)) return new Set(tgt.filter((t) => all.includes(t)));
  if (tgtType === 'list') return new Set(tgt.split(',').filter((t) => all.includes(t)));
  if (tgt === '*') return new Set(all);
  if (tgt === 'web*' || tgt === 'G@role:web') return new Set(['web1', 'web2']);
  return new Set(all.filter((id) => id === tgt));
};

describe('eauth permissions (salt/utils/minions.py)', () => {
  it('matches function regexes with re.match, all or nothing for a list of functions', () => {
    expect(matchCheck('test.*', 'test.ping')).toBe(true);
    expect(matchCheck('test', 'test.ping')).toBe(true); // re.match anchors at the start only
    expect(matchCheck('test.ping', 'cmd.run')).toBe(false);
    expect(matchCheck('test.*', ['test.ping', 'cmd.run'])).toBe(false);
    expect(matchCheck('[', 'x')).toBe(false); // a broken regex matches nothing
  });

  it('allows a plain regex on every minion, and a target-scoped entry only inside its target', () => {
    expect(authCheck(['.*'], 'cmd.run', [], '*', 'glob', resolve)).toBe(true);
    expect(authCheck(['test.ping'], 'cmd.run', ['id'], '*', 'glob', resolve)).toBe(false);
    const scoped = [{ 'web*': ['test.*', 'cmd.run'] }];
    expect(authCheck(scoped, 'cmd.run', [], 'web1', 'glob', resolve)).toBe(true);
    expect(authCheck(scoped, 'cmd.run', [], 'web*', 'glob', resolve)).toBe(true);
    expect(authCheck(scoped, 'cmd.run', [], '*', 'glob', resolve)).toBe(false); // db1 is outside
    expect(authCheck(scoped, 'pkg.install', [], 'web1', 'glob', resolve)).toBe(false);
  });

  it('checks argument constraints: positional regexes (None = any) and keyword regexes', () => {
    const list = [{ 'web*': [{ 'cmd.run': { args: ['ls.*', null], kwargs: { cwd: '/tmp' } } }] }];
    expect(authCheck(list, 'cmd.run', ['ls -l', 'x', { __kwarg__: true, cwd: '/tmp' }], 'web1', 'glob', resolve)).toBe(true);
    expect(authCheck(list, 'cmd.run', ['rm -rf /', 'x', { __kwarg__: true, cwd: '/tmp' }], 'web1', 'glob', resolve)).toBe(false);
    expect(authCheck(list, 'cmd.run', ['ls', 'x'], 'web1', 'glob', resolve)).toBe(false); // cwd missing
    expect(authCheck(list, 'cmd.run', ['ls'], 'web1', 'glob', resolve)).toBe(false); // second arg missing
  });

  it('answers runner and wheel calls from @runner, @wheel, @<module> and their dict forms', () => {
    expect(specCheck(['@runner'], 'jobs.list_jobs', {}, 'runner')).toBe(true);
    expect(specCheck(['@runners'], 'jobs.list_jobs', {}, 'runner')).toBe(true);
    expect(specCheck(['@wheel'], 'jobs.list_jobs', {}, 'runner')).toBe(false);
    expect(specCheck(['@jobs'], 'jobs.list_jobs', {}, 'runner')).toBe(true);
    expect(specCheck(['test.ping'], 'manage.status', {}, 'runner')).toBe(false);
    expect(specCheck([{ '@runner': ['manage.*'] }], 'manage.status', {}, 'runner')).toBe(true);
    expect(specCheck([{ '@manage': ['status'] }], 'manage.status', {}, 'runner')).toBe(true);
    expect(specCheck([{ '@manage': ['up'] }], 'manage.status', {}, 'runner')).toBe(false);
    expect(specCheck([], 'key.list_all', {}, 'wheel')).toBe(false);
    expect(specCheck(['@wheel'], 'nodot', {}, 'wheel')).toEqual({
      error: { name: 'SaltInvocationError', message: 'A command invocation error occurred: Check syntax.' },
    });
  });

  it('builds the auth list from the user, their groups and * for anyone not named', () => {
    const config = { '^filename': '/x', apiuser: ['.*'], 'admins%': ['@wheel'], '*': ['test.ping'], 'web.*': ['cmd.run'] };
    expect(fillAuthList(config, 'apiuser', [])).toEqual(['.*']);
    expect(fillAuthList(config, 'webadmin', ['admins'])).toEqual(['@wheel', 'cmd.run']);
    expect(fillAuthList(config, 'nobody', [])).toEqual(['test.ping']);
  });

  it('reports the permissions of a login as Salt sorts them: strings first, sorted, then the rest by repr', () => {
    const config = { apiuser: ['.*', '@runner', '@wheel', '@jobs', { 'web*': ['test.*'] }, '.*'] };
    expect(sortedPermissions(sumPermissions(config, 'apiuser'), pyRepr)).toEqual([
      '.*',
      '@jobs',
      '@runner',
      '@wheel',
      { 'web*': ['test.*'] },
    ]);
  });
});
