/** How every pkg backend reads its name/pkgs/version arguments, as Salt's `pkg_resource.parse_targets` does. */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { CommandExecutionError, InvocationError, type ISalt } from 'brine/plugin';

/** `pkgs` items: a name, or a one-key {name: version} map. */
export function pkgTargets(name: string | undefined, pkgs: unknown[] | undefined, version: unknown): Record<string, string | null> {
  if (pkgs && pkgs.length > 0) {
    const ret: Record<string, string | null> = {};
    for (const p of pkgs) {
      if (typeof p === 'object' && p !== null && !Array.isArray(p)) {
        const [k, v] = Object.entries(p)[0] ?? [];
        if (k !== undefined) ret[k] = v === null || v === undefined ? null : String(v);
      } else ret[String(p)] = null;
    }
    return ret;
  }
  if (name)
    return Object.fromEntries(name.split(',').map((n) => [n.trim(), version === undefined || version === null ? null : String(version)]));
  return {};
}

/**
 * Salt's CommandExecutionError text with `info={"errors": [...], "changes": ...}` as a state shows
 * it (`strerror_without_changes`): the message, then the errors as the nested outputter lists them.
 * The changes travel in the error's `info`.
 */
export function withErrors(message: string, errors: string[]): string {
  const prefix = /[.?!]$/.test(message) ? message : `${message}.`;
  return `${prefix} Additional info follows:\n\nerrors:\n${errors.map((e) => `    - ${e.trim()}`).join('\n')}`;
}

/** Salt's `config.valid_fileproto`: a source fetched through cp.cache_file rather than read in place. */
export function hasFileProto(path: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(path)?.[1]?.toLowerCase();
  return scheme !== undefined && ['salt', 'file', 'http', 'https', 'ftp', 's3', 'swift', 'hdfs'].includes(scheme);
}

/** The saltenv a module's call names (`saltenv=`), else base. */
export function saltenvOf(kwargs: Record<string, unknown>): string {
  return typeof kwargs.saltenv === 'string' && kwargs.saltenv ? kwargs.saltenv : 'base';
}

/** `cp.cache_file` of one source: its local path, or an error naming the source and saltenv. */
export async function cacheSource(salt: ISalt, source: string, saltenv: string): Promise<string> {
  const cached = await salt.call('cp.cache_file', [source, saltenv]);
  if (typeof cached !== 'string' || !cached) throw new CommandExecutionError(`Unable to retrieve ${source} from saltenv '${saltenv}'`);
  return cached;
}

/**
 * Salt's `parse_targets` for `sources=[{name: source}]`: each package file's local path, a
 * salt:// (or http, ftp, ...) source cached first; a local source must be an absolute path.
 */
export async function sourcePaths(salt: ISalt, sources: unknown[], saltenv: string): Promise<[string, string][]> {
  const ret: [string, string][] = [];
  for (const s of sources) {
    const entries = typeof s === 'object' && s !== null && !Array.isArray(s) ? Object.entries(s) : [];
    const [name, src] = entries[0] ?? [];
    if (entries.length !== 1 || typeof src !== 'string')
      throw new InvocationError(`sources must be a list of {name: package file} maps, not ${JSON.stringify(s)}`);
    if (hasFileProto(src)) ret.push([name, await cacheSource(salt, src, saltenv)]);
    else if (!isAbsolute(src)) throw new InvocationError(`Path ${src} for package ${name} is either not absolute or an invalid protocol`);
    else ret.push([name, src]);
  }
  return ret;
}

/**
 * The package file `lowpkg.bin_pkg_info` reads, by Salt's rules: a fileserver URL (salt://, http://,
 * ...) cached first; a local path must be absolute and exist.
 */
export async function packageFile(salt: ISalt, path: string, saltenv: string): Promise<string> {
  if (hasFileProto(path)) return cacheSource(salt, path, saltenv);
  if (!isAbsolute(path)) throw new InvocationError(`${path} does not exist on minion`);
  if (!statSync(path, { throwIfNoEntry: false })) throw new CommandExecutionError(`${path} does not exist on minion`);
  return path;
}
