/**
 * Salt's publisher_acl_blacklist as salt/acl/__init__.py reads it: users and functions match as
 * expr_match (the value, a glob, or a whole-line Python regex); a compound command is refused if
 * any of its functions is.
 */
import { describe, expect, it } from 'vitest';
import { PublisherBlacklist } from '../../../src/core/master/publisher-acl';

describe('PublisherBlacklist', () => {
  const acl = new PublisherBlacklist({ users: ['root', '^(?!sudo_).*bob$'], modules: ['cmd.*', 'test\\.echo'] });

  it('refuses a blacklisted user whatever the function, by name or regex', () => {
    expect(acl.refuses('root', 'test.ping')).toBe(true);
    expect(acl.refuses('bob', 'test.ping')).toBe(true);
    expect(acl.refuses('sudo_bob', 'test.ping')).toBe(false);
    expect(acl.refuses('alice', 'test.ping')).toBe(false);
  });

  it('refuses a blacklisted function by glob or regex, alone or in a compound command', () => {
    expect(acl.refuses('alice', 'cmd.run')).toBe(true);
    expect(acl.refuses('alice', 'test.echo')).toBe(true);
    expect(acl.refuses('alice', 'test.echoes')).toBe(false);
    expect(acl.refuses('alice', ['test.ping', 'cmd.run_all'])).toBe(true);
    expect(acl.refuses('alice', ['test.ping', 'grains.items'])).toBe(false);
  });

  it('takes a single string for a list, and an empty option refuses nothing', () => {
    expect(new PublisherBlacklist({ modules: 'state.*' }).refuses('alice', 'state.apply')).toBe(true);
    expect(new PublisherBlacklist({}).refuses('root', 'cmd.run')).toBe(false);
  });

  it('names the option for a value that is not a list of strings', () => {
    expect(() => new PublisherBlacklist({ users: [1] })).toThrow(
      'publisher_acl_blacklist: users must be a list of names or patterns, got [1]',
    );
  });
});
