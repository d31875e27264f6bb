import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { filterBy } from '../../../plugins/grains/filter-by';

describe('grains.append / grains.remove', () => {
  it('appends to and removes from list grains with Salt messages', async () => {
    const h = await createHarness({ grains: { roles: ['web'], os: 'Debian', deep: { list: [1], keep: 'x' } } });
    expect((await h.call('grains.append', ['roles', 'db'])).return).toEqual({ roles: ['web', 'db'] });
    expect((await h.call('grains.append', ['roles', 'db'])).return).toBe('The val db was already in the list roles');
    expect((await h.call('grains.append', ['roles', ['a', 'b']])).return).toEqual({ roles: ['web', 'db', 'a', 'b'] });
    expect((await h.call('grains.append', ['os', 'x'])).return).toBe('The key os is not a valid list');
    expect((await h.call('grains.append', ['os', 'x'], { convert: true })).return).toEqual({ os: ['Debian', 'x'] });
    expect((await h.call('grains.append', ['fresh', 'one'])).return).toEqual({ fresh: ['one'] });
    expect((await h.call('grains.append', ['deep:list', 2])).return).toEqual({ deep: { list: [1, 2], keep: 'x' } });
    expect((await h.call('grains.remove', ['roles', 'db'])).return).toEqual({ roles: ['web', 'a', 'b'] });
    expect((await h.call('grains.remove', ['roles', 'zz'])).return).toBe('The val zz was not in the list roles');
    expect((await h.call('grains.remove', ['deep:list', 1])).return).toEqual({ deep: { list: [2], keep: 'x' } });
    expect((await h.call('grains.get', ['roles'])).return).toEqual(['web', 'a', 'b']);
  });
});

describe('grains.filter_by', () => {
  it('picks by os_family, globs, lists, default, base and merge', async () => {
    const h = await createHarness({ grains: { os_family: 'Debian', roles: ['web', 'db'], num: 3 } });
    const lookup = { Debian: { pkg: 'apache2' }, RedHat: { pkg: 'httpd' }, default: { pkg: 'apache' } };
    expect((await h.call('grains.filter_by', [lookup])).return).toEqual({ pkg: 'apache2' });
    expect((await h.call('grains.filter_by', [{ 'Deb*': 'yes' }])).return).toBe('yes');
    expect((await h.call('grains.filter_by', [{ db: 'database' }, 'roles'])).return).toBe('database');
    expect((await h.call('grains.filter_by', [{ '3': 'three' }, 'num'])).return).toBe('three');
    expect((await h.call('grains.filter_by', [lookup, 'missing'])).return).toEqual({ pkg: 'apache' });
    expect((await h.call('grains.filter_by', [{ A: 1 }, 'missing'])).return).toBe(null);
    // Salt's documented example: base merged under the pick, merge over it.
    const res = await h.call('grains.filter_by', [{ A: 'B', C: { D: { E: 'F', G: 'H' } } }, 'xxx', { D: { E: 'I', J: 'K' } }, 'C']);
    expect(res.return).toEqual({ D: { E: 'I', G: 'H', J: 'K' } });
    expect((await h.call('grains.filter_by', [lookup], { base: 'default', merge: { extra: 1 } })).return).toEqual({
      pkg: 'apache2',
      extra: 1,
    });
    expect((await h.call('grains.filter_by', ['nope'])).return).toBe(
      "ERROR executing 'grains.filter_by': lookup_dict must be a dict, got 'nope'",
    );
    expect((await h.call('grains.filter_by', [lookup], { merge: 'x' })).return).toBe(
      "ERROR executing 'grains.filter_by': filter_by merge argument must be a dictionary.",
    );
  });

  it('refuses a base that is a dict under a non-dict pick', () => {
    expect(() => filterBy({ a: 'x', b: { y: 1 } }, 'a', { base: 'b' })).toThrow('must both be dictionaries');
  });
});
