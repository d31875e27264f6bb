import { fnmatch } from './fnmatch';
import { pythonReMatch } from './regex';

/**
 * Salt's salt.utils.stringutils.expr_match: the line equals the expression, matches it as a glob,
 * or matches it as a whole-line Python regex (a bad regex just does not match).
 *
 * @example
 * exprMatch('salt/job/1/ret/web1', 'salt/job/*') // true
 * exprMatch('test.ping', 'test\\..*')            // true
 */
export function exprMatch(line: string, expr: string): boolean {
  if (line === expr || fnmatch(expr, line)) return true;
  try {
    return pythonReMatch(`\\A(?:${expr})\\Z`, line);
  } catch {
    return false;
  }
}
