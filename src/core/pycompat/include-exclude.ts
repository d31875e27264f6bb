/**
 * Salt's salt.utils.stringutils.check_include_exclude, as file.recurse, file.directory and
 * cp.cache_dir use it.
 */
import { fnmatch } from './fnmatch';
import { compilePythonSearch } from './regex';

function patMatches(path: string, pat: string): boolean {
  if (pat.startsWith('E@')) return compilePythonSearch(pat.slice(2), 0).test(path);
  return fnmatch(pat, path);
}

/**
 * True when the path matches include_pat (any of a list) and not exclude_pat. Patterns are
 * globs, or Python regular expressions (searched) after `E@`.
 *
 *   checkIncludeExclude('a/b.conf', '*.conf', 'E@^tmp/')  // true
 */
export function checkIncludeExclude(path: string, includePat?: unknown, excludePat?: unknown): boolean {
  const list = (p: unknown): string[] => (Array.isArray(p) ? p.map(String) : [String(p)]);
  const hasInc = includePat !== undefined && includePat !== null && includePat !== '';
  const hasExc = excludePat !== undefined && excludePat !== null && excludePat !== '';
  const included = !hasInc || list(includePat).some((p) => patMatches(path, p));
  const excluded = hasExc && list(excludePat).some((p) => patMatches(path, p));
  return included && !excluded;
}
