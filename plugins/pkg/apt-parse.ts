/**
 * Readers of dpkg/apt output, as Salt's aptpkg reads them. Pure functions of the text, so the
 * tables of tests need no package manager.
 */

/** Salt's `pkg_resource` package map: name -> versions. */
export type PkgVersions = Record<string, string[]>;

export interface DpkgLists {
  installed: PkgVersions;
  removed: PkgVersions;
  purge_desired: PkgVersions;
}

/**
 * `dpkg-query --showformat '${Status} ${Package} ${Version} ${Architecture}\n' -W`, sorted into
 * installed/removed/purge-desired; a foreign architecture on amd64 gets `:arch` after the name.
 */
export function parseDpkgQuery(out: string, grains: { cpuarch?: unknown; osarch?: unknown }): DpkgLists {
  const ret: DpkgLists = { installed: {}, removed: {}, purge_desired: {} };
  const add = (into: PkgVersions, name: string, version: string): void => {
    (into[name] ??= []).push(version);
  };
  for (const line of out.split('\n')) {
    const cols = line.split(/\s+/).filter(Boolean);
    if (cols.length < 6) continue;
    const [linetype, , status, pkg, version, arch] = cols;
    let name = pkg;
    if (grains.cpuarch === 'x86_64' && arch !== 'all' && grains.osarch === 'amd64' && arch !== 'amd64') name += `:${arch}`;
    if ((linetype.includes('install') || linetype.includes('hold')) && status.includes('installed')) add(ret.installed, name, version);
    else if (linetype.includes('deinstall')) add(ret.removed, name, version);
    else if (linetype.includes('purge') && status === 'installed') add(ret.purge_desired, name, version);
  }
  for (const list of Object.values(ret) as PkgVersions[]) for (const v of Object.values(list)) v.sort();
  return ret;
}

/** Salt's `pkg_resource.stringify`: each list of versions as one comma-joined string. */
export function stringify(pkgs: PkgVersions): Record<string, string> {
  return Object.fromEntries(Object.entries(pkgs).map(([k, v]) => [k, v.join(',')]));
}

/** `apt-cache -q policy NAMES`: package -> candidate version ('' for none). */
export function parsePolicy(out: string, names: string[]): Record<string, string> {
  const short = names.map((n) => n.split(':')[0]);
  const candidates: Record<string, string> = {};
  let current: string | undefined;
  for (const raw of out.split('\n')) {
    const line = raw.trim();
    if (line.endsWith(':') && !line.startsWith('Version table')) {
      const name = line.slice(0, -1);
      if (names.includes(name) || short.includes(name.split(':')[0])) current = name;
    } else if (line.startsWith('Candidate') && current !== undefined) {
      const comps = line.split(/\s+/);
      const candidate = comps.length >= 2 ? comps[comps.length - 1] : '';
      candidates[current] = candidate.toLowerCase() === '(none)' ? '' : candidate;
    }
  }
  return candidates;
}

/** `apt-get -q update`: repository line -> True (fetched), None (unchanged), False (ignored or failed). */
export function parseUpdate(out: string): { repos: Record<string, boolean | null>; errors: string[] } {
  const repos: Record<string, boolean | null> = {};
  const errors: string[] = [];
  for (const line of out.split('\n')) {
    const cols = line.split(/\s+/).filter(Boolean);
    if (cols.length === 0) continue;
    let ident = cols.slice(1).join(' ');
    if (cols[0].includes('Get')) {
      ident = ident.replace(/ \[.+B\]$/, '');
      repos[ident] = true;
    } else if (cols[0].includes('Ign')) repos[ident] = false;
    else if (cols[0].includes('Hit')) repos[ident] = null;
    else if (cols[0].includes('Err')) {
      repos[ident] = false;
      errors.push(ident);
    }
  }
  return { repos, errors };
}

/** `apt-get --just-print (dist-)upgrade`: package -> version it would be upgraded to. */
export function parseJustPrint(out: string): Record<string, string> {
  const ret: Record<string, string> = {};
  for (const m of out.matchAll(/^Conf ([^ ]+) \(([^ ]+)/gm)) ret[m[1]] = m[2];
  return ret;
}

/** `apt-cache show`/`dump`: package -> its `Version:` lines, in the order apt printed them (Salt's list_repo_pkgs). */
export function parseRepoVersions(out: string): Record<string, string[]> {
  const ret: Record<string, string[]> = {};
  let pkg: string | undefined;
  for (const line of out.split('\n')) {
    if (!line.trim()) continue;
    const m = /^Package: (.+)/.exec(line);
    if (m && m[1] !== pkg) {
      pkg = m[1];
      continue;
    }
    const comps = line.trim().split(/\s+/);
    if (comps[0] === 'Version:' && pkg !== undefined) (ret[pkg] ??= []).push(line.trim().slice('Version:'.length).trim());
  }
  return ret;
}

/** `dpkg --get-selections`: state -> packages. */
export function parseSelections(out: string): Record<string, string[]> {
  const ret: Record<string, string[]> = {};
  for (const line of out.split('\n')) {
    const [pkg, state] = line.split(/\s+/).filter(Boolean);
    if (!pkg || !state) continue;
    (ret[state] ??= []).push(pkg);
  }
  return ret;
}

/** Salt's `data.compare_dicts`: {name: {old, new}} for every name whose value changed. */
export function compareDicts(old: Record<string, string>, next: Record<string, string>): Record<string, { old: string; new: string }> {
  const ret: Record<string, { old: string; new: string }> = {};
  for (const key of new Set([...Object.keys(old), ...Object.keys(next)])) {
    if (old[key] !== next[key]) ret[key] = { old: old[key] ?? '', new: next[key] ?? '' };
  }
  return ret;
}

/** `dpkg -I` of a .deb as Salt's `lowpkg.bin_pkg_info` reads it: the last word of its Package, Version and Architecture lines. */
export function parseDebInfo(out: string): { name?: string; version?: string; arch?: string } {
  const ret: { name?: string; version?: string; arch?: string } = {};
  const last = (line: string): string => line.split(/\s+/).slice(-1)[0];
  for (const raw of out.split('\n')) {
    const line = raw.trim();
    if (/^Package *:/.test(line)) ret.name = last(line);
    else if (/^Version *:/.test(line)) ret.version = last(line);
    else if (/^Architecture *:/.test(line)) ret.arch = last(line);
  }
  return ret;
}

/** What separates packages in the `dpkg-query` format of Salt's `lowpkg.info` (`\n*\/~^\\*\n` once dpkg-query unescapes it). */
export const DPKG_INFO_SEPARATOR = '\\n*/~^\\\\*\\n';

/**
 * Salt's `_get_pkg_info` reading of `dpkg-query -W -f='package:...\ndescription:${Description}' + separator`:
 * one map per package of the fields that are not empty, in the order given, and the description
 * (all its lines) as is.
 */
export function parseDpkgInfo(out: string): Record<string, string>[] {
  const ret: Record<string, string>[] = [];
  for (const block of out.split(/\r?\n\*\/~\^\\\*(?:\r?\n|)/)) {
    if (!block.trim()) continue;
    const at = block.indexOf('\ndescription:');
    const head = at === -1 ? block : block.slice(0, at);
    const data: Record<string, string> = {};
    for (const line of head.split('\n').map((l) => l.trim())) {
      if (!line) continue;
      const colon = line.indexOf(':');
      const [key, value] = colon === -1 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1)];
      if (value) data[key] = value;
    }
    data.description = at === -1 ? '' : block.slice(at + '\ndescription:'.length);
    ret.push(data);
  }
  return ret;
}

/** Salt's `_get_pkg_license`: the `License:` values of a Debian copyright file, sorted, joined with ', '. */
export function debianLicenses(copyright: string): string {
  const found = new Set<string>();
  for (const line of copyright.split('\n')) if (line.startsWith('License:')) found.add(line.slice('License:'.length).trim());
  return [...found].sort().join(', ');
}

/** Salt's `_get_pkg_ds_avail` over dselect's `available` file: package -> its fields, keys lowercased. */
export function parseDselectAvailable(text: string): Record<string, Record<string, string>> {
  const ret: Record<string, Record<string, string>> = {};
  for (const chunk of text.split('Package:')) {
    const info: Record<string, string> = {};
    for (const line of `Package:${chunk}`.split('\n')) {
      const at = line.indexOf(': ');
      if (at === -1) continue;
      const value = line.slice(at + 2);
      if (value.trim()) info[line.slice(0, at).toLowerCase()] = value;
    }
    if (info.package) ret[info.package] = info;
  }
  return ret;
}
