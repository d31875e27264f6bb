/**
 * Readers of rpm/dnf/yum output and rpm's version order, as Salt's yumpkg and salt.utils.pkg.rpm
 * read and compare them. Pure functions of the text, so the tests need no dnf (Debian hosts have none).
 */
import type { PkgVersions } from './apt-parse';

const ARCHES_32 = ['i386', 'i486', 'i586', 'i686'];
const ARCHES_ARM_32 = ['armv5tel', 'armv5tejl', 'armv6l', 'armv6hl', 'armv7l', 'armv7hl', 'armv7hnl'];
/** salt.utils.pkg.rpm.ARCHES: the architectures a `name.arch` suffix may name. */
export const ARCHES: readonly string[] = [
  ...['x86_64', 'athlon', 'amd64', 'ia32e', 'ia64', 'geode'],
  ...ARCHES_32,
  ...['ppc', 'ppc64', 'ppc64le', 'ppc64iseries', 'ppc64pseries'],
  ...['s390', 's390x'],
  ...['alpha', 'alphaev4', 'alphaev45', 'alphaev5', 'alphaev56', 'alphapca56', 'alphaev6', 'alphaev67', 'alphaev68', 'alphaev7'],
  ...ARCHES_ARM_32,
  'aarch64',
  ...['sh3', 'sh4', 'sh4a'],
];

/** Both the OS and the package are x86 or ARM 32-bit (a package of the OS's own kind). */
export function check32(arch: string, osarch: string): boolean {
  return (ARCHES_32.includes(osarch) && ARCHES_32.includes(arch)) || (ARCHES_ARM_32.includes(osarch) && ARCHES_ARM_32.includes(arch));
}

/** Salt's `resolve_name`: a package of a foreign architecture is `name.arch`. */
export function resolveName(name: string, arch: string, osarch: string): string {
  return !check32(arch, osarch) && arch !== osarch && arch !== 'noarch' ? `${name}.${arch}` : name;
}

/** Salt's QUERYFORMAT with `repoid` in place of %{REPOID}, which is a dnf field and not an rpm tag. */
export function rpmQueryformat(repoid: string): string {
  return `%{NAME}_|-%{EPOCH}_|-%{VERSION}_|-%{RELEASE}_|-%{ARCH}_|-${repoid}_|-%{INSTALLTIME}`;
}

/** The query format Salt gives `rpm -qa` (QUERYFORMAT with the repo id as `(none)`), a package a line. */
export const RPM_QUERYFORMAT = `${rpmQueryformat('(none)')}\n`;

/** A time in seconds since the epoch as Python's `utcfromtimestamp(t).isoformat() + 'Z'` writes it. */
export function isoUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One package as Salt's `salt.utils.pkg.rpm.parse_pkginfo` reads it from a QUERYFORMAT line. */
export interface RpmPkgInfo {
  /** `name`, or `name.arch` for a foreign architecture. */
  name: string;
  /** `epoch:version-release`, epoch 0 left out. */
  version: string;
  arch: string;
  repoid: string;
  /** ISO 8601 in UTC; null for a package file (not installed). */
  install_date: string | null;
  install_date_time_t: number | null;
}

/** Salt's `parse_pkginfo`: one `name_|-epoch_|-version_|-release_|-arch_|-repoid_|-installtime` line, null when it is not one. */
export function parsePkginfo(line: string, osarch: string): RpmPkgInfo | null {
  const cols = line.split('_|-');
  if (cols.length !== 7) return null;
  const [name, epoch, version, release, arch, repoid, installTime] = cols;
  let ver = release ? `${version}-${release}` : version;
  if (epoch !== '(none)' && epoch !== '0') ver = `${epoch}:${ver}`;
  const t = installTime === '(none)' || installTime === '0' ? Number.NaN : Number.parseInt(installTime, 10);
  return {
    name: resolveName(name, arch, osarch),
    version: ver,
    arch,
    repoid,
    install_date: Number.isNaN(t) ? null : isoUtc(t),
    install_date_time_t: Number.isNaN(t) ? null : t,
  };
}

/** `rpm -qa --queryformat RPM_QUERYFORMAT`: name -> sorted versions (`epoch:version-release`, epoch 0 left out). */
export function parseRpmQa(out: string, osarch: string): PkgVersions {
  const ret: PkgVersions = {};
  for (const line of out.split('\n')) {
    const info = parsePkginfo(line, osarch);
    if (info) (ret[info.name] ??= []).push(info.version);
  }
  // Salt sorts each package's entries by their version part, as Python sorts strings.
  const versionPart = (v: string): string => v.split(':').slice(-1)[0].split('-')[0];
  for (const list of Object.values(ret))
    list.sort((a, b) => (versionPart(a) < versionPart(b) ? -1 : versionPart(a) > versionPart(b) ? 1 : 0));
  return ret;
}

/** A package of `dnf/yum list`: Salt's same pkginfo, without install dates. */
export type YumPkgInfo = Pick<RpmPkgInfo, 'name' | 'version' | 'arch' | 'repoid'>;

const HEADERS = ['installed packages', 'available packages', 'available upgrades', 'updated packages', 'upgraded packages'];

/**
 * Salt's `_yum_pkginfo`: `dnf/yum list ...` as (name.arch, version, repo) triples read across
 * whitespace (yum wraps a long name onto its own line), section headers dropped.
 */
export function parseYumList(out: string, osarch: string): YumPkgInfo[] {
  const words = out
    .split('\n')
    .filter((l) => !HEADERS.includes(l.toLowerCase()))
    .join('\n')
    .split(/\s+/)
    .filter(Boolean);
  const ret: YumPkgInfo[] = [];
  for (let i = 0; i + 2 < words.length; i += 3) {
    const dot = words[i].lastIndexOf('.');
    const [name, arch] = dot === -1 ? [words[i], osarch] : [words[i].slice(0, dot), words[i].slice(dot + 1)];
    ret.push({
      name: resolveName(name, arch, osarch),
      arch,
      version: words[i + 1].replace(/-+$/, ''),
      repoid: words[i + 2].replace(/^@+/, ''),
    });
  }
  return ret;
}

const HOLD_PATTERN = String.raw`[\w+]+(?:[.-][^-]+)*`;

/**
 * Salt's `_get_hold` over `dnf/yum versionlock list`: each lock in full (`bash-0:5.1.8-9.el9.*`),
 * or only the package name (full=false). yum's entries carry an epoch prefix (`0:bash-...`).
 */
export function parseVersionlock(out: string, bin: string, full: boolean): string[] {
  const dnf = bin === 'dnf' || bin === 'dnf5';
  const lock = String.raw`${HOLD_PATTERN}-\S+`;
  const re = new RegExp(dnf ? `(${lock})` : full ? String.raw`(\d+:${lock})` : String.raw`\d+:(${lock})`);
  const ret: string[] = [];
  for (const line of out.split('\n')) {
    const m = re.exec(line);
    if (!m) continue;
    if (full) ret.push(m[1]);
    else {
      const woarch = m[1].split('.').slice(0, -1).join('.') || m[1];
      const worel = woarch.slice(0, woarch.lastIndexOf('-') === -1 ? undefined : woarch.lastIndexOf('-'));
      ret.push(worel.slice(0, worel.lastIndexOf('-') === -1 ? undefined : worel.lastIndexOf('-')));
    }
  }
  return ret;
}

/** One altered file as Salt's `lowpkg.verify` reports it: what differs, or that it is missing, and its rpm file type. */
export interface RpmVerifyEntry {
  mismatch?: string[];
  missing?: true;
  type?: string;
}

/** rpm's file attributes (`%config`, `%doc`, ...) as Salt names them; rpm's `a` (artifact) Salt leaves unnamed. */
const RPM_FILE_TYPES: Record<string, string> = { c: 'config', d: 'doc', g: 'ghost', l: 'license', r: 'readme' };

/** `rpm -V`'s nine test columns, in order, and the words Salt gives a failed one. */
const RPM_VERIFY_TESTS: [string, string][] = [
  ['S', 'size'],
  ['M', 'mode'],
  ['5', 'md5sum'],
  ['D', 'device major/minor number'],
  ['L', 'readlink path'],
  ['U', 'user'],
  ['G', 'group'],
  ['T', 'mtime'],
  ['P', 'capabilities'],
];

/** A file line of `rpm -V`: nine test columns (eight before rpm 4.6) or `missing`, the file type column, the path. */
const RPM_VERIFY_LINE = /^(?:([.?SM5DLUGTP]{8,9})|missing ) {2}(.) (.+)$/;
/** What rpm prints, on stdout, for a name that is not an installed package. */
export const RPM_NOT_INSTALLED = /^package .+ is not installed$/;

/** One file line of `rpm -V`: its test columns (null when the file is missing), its type column, its path. */
export interface RpmVerifyLine {
  tests: string | null;
  typeChar: string;
  path: string;
}

/**
 * `rpm -V`'s file lines read by their shape rather than cut at fixed columns (as Salt cuts them):
 * paths with spaces stay whole, dependency complaints are left out, and "package X is not
 * installed" lines are returned apart.
 */
export function rpmVerifyLines(out: string): { lines: RpmVerifyLine[]; notInstalled: string[] } {
  const lines: RpmVerifyLine[] = [];
  const notInstalled: string[] = [];
  for (const line of out.split('\n')) {
    if (RPM_NOT_INSTALLED.test(line)) notInstalled.push(line);
    const m = RPM_VERIFY_LINE.exec(line);
    if (m) lines.push({ tests: m[1] ?? null, typeChar: m[2], path: m[3] });
  }
  return { lines, notInstalled };
}

/**
 * `rpm -V` as Salt's `rpm_lowpkg.verify` reads it: {path: {mismatch: [...], type}} or
 * {path: {missing: true, type}}, leaving out files whose type is in `ignoreTypes`. Unlike Salt,
 * which cuts every line at fixed columns, only file lines become entries: rpm's dependency
 * complaints are left out, and "package X is not installed" lines are returned apart so the
 * caller can refuse them (Salt turned them into a file named "h is not installed").
 */
export function parseRpmVerify(out: string, ignoreTypes: string[]): { files: Record<string, RpmVerifyEntry>; notInstalled: string[] } {
  const files: Record<string, RpmVerifyEntry> = {};
  const { lines, notInstalled } = rpmVerifyLines(out);
  for (const { tests, typeChar, path } of lines) {
    const type = RPM_FILE_TYPES[typeChar];
    if (type !== undefined && ignoreTypes.includes(type)) continue;
    const entry: RpmVerifyEntry =
      tests === null ? { missing: true } : { mismatch: RPM_VERIFY_TESTS.filter(([c], i) => tests[i] === c).map(([, word]) => word) };
    if (type !== undefined) entry.type = type;
    files[path] = entry;
  }
  return { files, notInstalled };
}

/** The words Salt's `lowpkg.modified` gives `rpm -V`'s nine test columns, in order. */
const RPM_MODIFIED_KEYS = ['size', 'mode', 'checksum', 'device', 'symlink', 'owner', 'group', 'time', 'capabilities'];

/**
 * `rpm -Va` as Salt's `lowpkg.modified` reads it: {path: [what changed..., 'config' for a config
 * file]}. Salt splits each line on whitespace, so a missing file became seven made-up changes (one
 * per letter of "missing"), every typed file (doc, ghost, license...) was called config, a path
 * with a space broke the line and a dependency complaint stopped the function; here a missing
 * file is ['missing'], only `c` is config, and only file lines are read.
 */
export function parseRpmModified(out: string): Record<string, string[]> {
  const ret: Record<string, string[]> = {};
  for (const { tests, typeChar, path } of rpmVerifyLines(out).lines) {
    // A '?' (rpm could not check) counts as changed, as in Salt; rpm before 4.6 has no ninth column.
    const stats = tests === null ? ['missing'] : RPM_MODIFIED_KEYS.filter((_, i) => (tests[i] ?? '.') !== '.');
    if (typeChar === 'c') stats.push('config');
    ret[path] = stats;
  }
  return ret;
}

/** `rpm -q(a) --queryformat '%{NAME} %{VERSION}\n'`: {name: version} (the last of several versions wins, as in Salt), and the names not installed. */
export function parseRpmNameVersion(out: string): { pkgs: Record<string, string>; notInstalled: string[] } {
  const pkgs: Record<string, string> = {};
  const notInstalled: string[] = [];
  for (const line of out.split('\n')) {
    if (RPM_NOT_INSTALLED.test(line)) notInstalled.push(line);
    else {
      const m = /^(\S+) (\S+)$/.exec(line);
      if (m) pkgs[m[1]] = m[2];
    }
  }
  return { pkgs, notInstalled };
}

/** `rpm -ql(a)`: the paths, and the names not installed (Salt listed those lines among the files). */
export function parseRpmFileList(out: string): { errors: string[]; files: string[] } {
  const errors: string[] = [];
  const files: string[] = [];
  for (const line of out.split('\n')) {
    if (RPM_NOT_INSTALLED.test(line)) errors.push(line);
    // rpm's "(contains no files)" for an empty package is not a path.
    else if (line && line !== '(contains no files)') files.push(line);
  }
  return { errors, files };
}

/** One package's name on a line, then each of its files on a line after a tab. */
export const RPM_FILES_QUERYFORMAT = '%{NAME}\\n[\\t%{FILENAMES}\\n]';

/** `rpm -q(a) --queryformat RPM_FILES_QUERYFORMAT`: {name: [paths]} (several versions' files together), and the names not installed. */
export function parseRpmFileDict(out: string): { errors: string[]; packages: Record<string, string[]> } {
  const errors: string[] = [];
  const packages: Record<string, string[]> = {};
  let current: string[] | null = null;
  for (const line of out.split('\n')) {
    if (line.startsWith('\t')) current?.push(line.slice(1));
    else if (RPM_NOT_INSTALLED.test(line)) {
      errors.push(line);
      current = null;
    } else if (line) current = packages[line] ??= [];
  }
  return { errors, packages };
}

/** Salt's `version_to_evr`: '2:1.0-1.2' -> ['2', '1.0', '1.2']. */
export function versionToEvr(ver: string): [string, string, string] {
  if (!ver) return ['0', '', ''];
  const e = ver.indexOf(':');
  let epoch = '0';
  if (e !== -1) {
    const n = Number.parseInt(ver.slice(0, e), 10);
    epoch = /^\s*[-+]?\d+\s*$/.test(ver.slice(0, e)) && !Number.isNaN(n) ? String(n) : '0';
  }
  const r = ver.indexOf('-');
  return r !== -1 ? [epoch, ver.slice(e + 1, r), ver.slice(r + 1)] : [epoch, ver.slice(e + 1), ''];
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isAlpha = (c: string): boolean => /^\p{L}$/u.test(c);
const isAlnum = (c: string): boolean => isDigit(c) || isAlpha(c);

/** rpm's `rpmvercmp` (Salt's pure-Python port): segments of digits and letters, `~` before all, `^` after the base. */
export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  const la = a.length;
  const lb = b.length;
  while (i < la || j < lb) {
    while (i < la && !(isAlnum(a[i]) || a[i] === '~' || a[i] === '^')) i++;
    while (j < lb && !(isAlnum(b[j]) || b[j] === '~' || b[j] === '^')) j++;
    if ((i < la && a[i] === '~') || (j < lb && b[j] === '~')) {
      if (!(i < la && a[i] === '~')) return 1;
      if (!(j < lb && b[j] === '~')) return -1;
      i++;
      j++;
      continue;
    }
    if ((i < la && a[i] === '^') || (j < lb && b[j] === '^')) {
      if (i >= la) return -1;
      if (j >= lb) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (!(i < la && j < lb)) break;
    const si = i;
    const sj = j;
    const num = isDigit(a[i]);
    const same = num ? isDigit : isAlpha;
    while (i < la && same(a[i])) i++;
    while (j < lb && same(b[j])) j++;
    if (sj === j) return num ? 1 : -1;
    let sa = a.slice(si, i);
    let sb = b.slice(sj, j);
    if (num) {
      sa = sa.replace(/^0+/, '');
      sb = sb.replace(/^0+/, '');
      if (sa.length !== sb.length) return sa.length > sb.length ? 1 : -1;
    }
    if (sa !== sb) return sa > sb ? 1 : -1;
  }
  if (i >= la && j >= lb) return 0;
  return i >= la ? -1 : 1;
}

/** Salt's rpm `version_cmp`: epoch, then version, then release (ignored when either lacks one). */
export function rpmVersionCmp(ver1: string, ver2: string, ignoreEpoch = false): number {
  const norm = (v: string): string => (ignoreEpoch ? v.split(':').slice(-1)[0] : v);
  const [e1, v1, r1] = versionToEvr(norm(ver1));
  const [e2, v2, r2] = versionToEvr(norm(ver2));
  const [rel1, rel2] = !r1 || !r2 ? ['', ''] : [r1, r2];
  const n1 = Number(e1);
  const n2 = Number(e2);
  if (n1 !== n2) return n1 > n2 ? 1 : -1;
  return rpmvercmp(v1, v2) || rpmvercmp(rel1, rel2);
}
