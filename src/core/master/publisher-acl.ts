/**
 * Salt's `publisher_acl_blacklist` (salt/acl/__init__.py PublisherACL): users and functions no
 * publish may name, whoever sends it (the root key's holder too). Each entry matches as Salt's
 * expr_match does (the value itself, a glob, or a whole-line Python regex).
 *
 * @example
 * // publisher_acl_blacklist: {users: ['root', '^(?!sudo_).*$'], modules: ['cmd.*', 'test.echo']}
 */
import { ConfigError } from '../errors';
import { exprMatch } from '../pycompat/expr-match';

export class PublisherBlacklist {
  private readonly users: string[];
  private readonly modules: string[];

  /** `blacklist`: the option's value; ConfigError BAD_CONFIG if its lists are not strings. */
  constructor(blacklist: Record<string, unknown>) {
    this.users = entries(blacklist, 'users');
    this.modules = entries(blacklist, 'modules');
  }

  /** Whether a publish by `user` of `fun` (one function, or a compound command's list) is refused. */
  refuses(user: string, fun: string | string[]): boolean {
    if (this.users.some((expr) => exprMatch(user, expr))) return true;
    return (Array.isArray(fun) ? fun : [fun]).some((f) => this.modules.some((expr) => exprMatch(f, expr)));
  }
}

function entries(blacklist: Record<string, unknown>, key: 'users' | 'modules'): string[] {
  const value = blacklist[key];
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
    throw new ConfigError(
      'BAD_CONFIG',
      `publisher_acl_blacklist: ${key} must be a list of names or patterns, got ${JSON.stringify(value)}`,
      {
        hint: `fix 'publisher_acl_blacklist' in the master config`,
      },
    );
  }
  return list;
}
