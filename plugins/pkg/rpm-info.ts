/**
 * The query format and the reading of Salt's `lowpkg.info` on rpm: pure functions of the text, so
 * the odd cases (a package without an epoch, a description with rules in it) are unit-tested apart.
 */
import { isoUtc, rpmVersionCmp } from './rpm-parse';

/** Salt's `attr_map`: each attribute's piece of the query format, in Salt's order (`SIZE` stands for the size tag). */
const ATTR_MAP: Record<string, string> = {
  name: 'name: %{NAME}\\n',
  relocations: 'relocations: %|PREFIXES?{[%{PREFIXES} ]}:{(not relocatable)}|\\n',
  version: 'version: %{VERSION}\\n',
  vendor: 'vendor: %{VENDOR}\\n',
  release: 'release: %{RELEASE}\\n',
  epoch: '%|EPOCH?{epoch: %{EPOCH}\\n}|',
  build_date_time_t: 'build_date_time_t: %{BUILDTIME}\\n',
  build_date: 'build_date: %{BUILDTIME}\\n',
  install_date_time_t: 'install_date_time_t: %|INSTALLTIME?{%{INSTALLTIME}}:{(not installed)}|\\n',
  install_date: 'install_date: %|INSTALLTIME?{%{INSTALLTIME}}:{(not installed)}|\\n',
  build_host: 'build_host: %{BUILDHOST}\\n',
  group: 'group: %{GROUP}\\n',
  source_rpm: 'source_rpm: %{SOURCERPM}\\n',
  size: 'size: SIZE\\n',
  arch: 'arch: %{ARCH}\\n',
  license: '%|LICENSE?{license: %{LICENSE}\\n}|',
  signature:
    'signature: %|DSAHEADER?{%{DSAHEADER:pgpsig}}:{%|RSAHEADER?{%{RSAHEADER:pgpsig}}:' +
    '{%|SIGGPG?{%{SIGGPG:pgpsig}}:{%|SIGPGP?{%{SIGPGP:pgpsig}}:{(none)}|}|}|}|\\n',
  packager: '%|PACKAGER?{packager: %{PACKAGER}\\n}|',
  url: '%|URL?{url: %{URL}\\n}|',
  summary: 'summary: %{SUMMARY}\\n',
  description: 'description:\\n%{DESCRIPTION}\\n',
  edition: 'edition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\\n',
};

/** The attributes `lowpkg.info` knows, for its documentation and error message. */
export const RPM_INFO_ATTRS: readonly string[] = Object.keys(ATTR_MAP).filter((k) => k !== 'edition');

/**
 * Ends each package's record. Salt ends them with `-----` and splits the output on any run of three
 * dashes, so a description holding `---` (a Markdown rule, a changelog line) was cut into pieces;
 * an ASCII record separator cannot appear in rpm's text fields.
 */
export const RPM_INFO_SEPARATOR = '\u001e';

/**
 * Salt's query for `lowpkg.info`: every attribute when `attrs` is null, else those named (unknown
 * names left out) plus name and edition, which the reading needs. Null when no name is known:
 * Salt's "No valid attributes found." Unlike Salt, `description` alone is an attribute too (Salt
 * leaves it out of the count and refused `attr=description`).
 */
export function rpmInfoQueryformat(attrs: readonly string[] | null, sizeTag: string): string | null {
  const keys = attrs === null ? Object.keys(ATTR_MAP).filter((k) => k !== 'description') : attrs.filter((k) => k in ATTR_MAP);
  if (keys.length === 0) return null;
  const query = keys.filter((k) => k !== 'description').map((k) => ATTR_MAP[k]);
  if (attrs !== null && !attrs.includes('name')) query.push(ATTR_MAP.name);
  if (attrs !== null && !attrs.includes('edition')) query.push(ATTR_MAP.edition);
  if (attrs === null || attrs.includes('description')) query.push(ATTR_MAP.description);
  return query.join('').replace('SIZE', sizeTag) + RPM_INFO_SEPARATOR;
}

/** One package's attributes as `lowpkg.info` returns them (times converted, empty values left out). */
export type RpmInfo = Record<string, string | number>;

/**
 * The records of `rpm -q --queryformat rpmInfoQueryformat(...)`, each with its name and edition,
 * as Salt reads them: `key: value` lines until `description:`, whose following lines are the
 * description; build_date and install_date in ISO 8601 (UTC), the `_time_t` ones as numbers.
 * Text outside a record (rpm's "package X is not installed") has no name and is dropped.
 */
export function parseRpmInfo(out: string, withDescription: boolean): (RpmInfo & { name: string })[] {
  const ret: (RpmInfo & { name: string })[] = [];
  for (const record of out.split(RPM_INFO_SEPARATOR)) {
    const data: RpmInfo = {};
    let name: string | undefined;
    let inDescription = false;
    const description: string[] = [];
    for (const line of record.trim().split('\n')) {
      if (inDescription) {
        description.push(line);
        continue;
      }
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key === 'description') inDescription = true;
      else if (key === 'name') name = value;
      else if (key === 'build_date' || key === 'install_date') {
        // "(not installed)" is not a time: Salt logs it and leaves the key out.
        if (/^\d+$/.test(value)) data[key] = isoUtc(Number(value));
      } else if (key === 'build_date_time_t' || key === 'install_date_time_t') {
        if (/^\d+$/.test(value)) data[key] = Number(value);
      } else if (value) data[key] = value;
    }
    if (withDescription) data.description = description.join('\n');
    if (name) ret.push({ ...data, name });
  }
  return ret;
}

/**
 * Salt's last step of `lowpkg.info`: the packages by name, newest edition first, gpg-pubkey
 * entries left out; the newest record of each name, or with `allVersions` a list of every record
 * (edition kept). Salt orders editions as LooseVersion does; here rpm's own order decides which is
 * newest (LooseVersion puts 1.0~rc1 after 1.0, rpm before it).
 */
export function newestRpmInfo(
  records: readonly (RpmInfo & { name: string })[],
  allVersions: boolean,
  keepEdition: boolean,
): Record<string, RpmInfo | RpmInfo[]> {
  // Salt's reversed(sorted(...)): ascending and stable, then reversed.
  const sorted = [...records].sort((a, b) => rpmVersionCmp(String(a.edition ?? ''), String(b.edition ?? ''))).reverse();
  const ret: Record<string, RpmInfo | RpmInfo[]> = {};
  for (const { name, ...data } of sorted) {
    if (name.startsWith('gpg-pubkey')) continue;
    const seen = ret[name];
    if (seen === undefined) {
      if (allVersions) ret[name] = [data];
      else {
        if (!keepEdition) delete data.edition;
        ret[name] = data;
      }
    } else if (allVersions && Array.isArray(seen)) seen.push(data);
  }
  return ret;
}
