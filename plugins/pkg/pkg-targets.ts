/**
 * How Salt's pkg states read what they are asked for: the `pkgs` list, version conditions
 * (`>=1.2, <2`) and the `name=version` strings of their comments. Pure functions, shared by the
 * pkg states and their tests.
 */
import { InvocationError, pyStr } from 'brine/plugin';

/** Wanted packages, name -> version condition (null: any version), in the order given. */
export type Desired = Record<string, string | null>;

/**
 * Salt's `_repack_pkgs` (`repack_dictlist`): names and one-key {name: version} maps into one map;
 * null for a list that is not one (Salt logs it and the state says the parameter is malformed).
 */
export function repackPkgs(pkgs: unknown): Desired | null {
  if (!Array.isArray(pkgs)) return null;
  const ret: Desired = {};
  for (const p of pkgs) {
    if (typeof p === 'string' || typeof p === 'number') ret[pyStr(p)] = null;
    else if (typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 1) {
      const [k, v] = Object.entries(p)[0];
      ret[k] = v === null || v === undefined ? null : pyStr(v);
    } else return null;
  }
  if (Object.keys(ret).length !== pkgs.length)
    throw new InvocationError(
      `You are passing a list of packages that contains duplicated packages names: ${JSON.stringify(pkgs)}. This cannot be processed. In case you are targeting different versions of the same package, please target them individually`,
    );
  return ret;
}

/** Salt's `pkg_resource.pack_sources`: [{name: source}] into {name: source}; null when malformed. */
export function packSources(sources: unknown): Record<string, string> | null {
  if (!Array.isArray(sources)) return null;
  const ret: Record<string, string> = {};
  for (const s of sources) {
    if (typeof s !== 'object' || s === null || Array.isArray(s) || Object.keys(s).length !== 1) return null;
    const [k, v] = Object.entries(s)[0];
    ret[k] = pyStr(v);
  }
  return ret;
}

/** Salt's `salt.utils.pkg.split_comparison`: ('>=', '1.2') from '>=1.2'; '' when there is none. */
export function splitComparison(version: string): [string, string] {
  const m = /^(<=>|!=|>=|<=|>>|<<|<>|>|<|=)?\s?([^<>=]+)$/.exec(version);
  return m ? [m[1] ?? '', m[2]] : ['', version];
}

/** Salt's `_parse_version_string`: '>=1.2, <2' -> [['>=', '1.2'], ['<', '2']] ('=' and '' are '=='). */
export function parseVersionConditions(conditions: string): [string, string][] {
  const text = conditions.trim();
  if (!text) return [];
  return text.split(',').map((c) => {
    const [oper, ver] = splitComparison(c.trim());
    return [oper === '=' || oper === '' ? '==' : oper, ver];
  });
}

/** Salt's `_get_desired_pkg`: 'name=version', or 'name>=version' when the condition has its operator. */
export function desiredPkg(name: string, desired: Desired): string {
  const v = desired[name];
  const oper = !v || /^[<>=]/.test(v) ? '' : '=';
  return `${name}${oper}${v ?? ''}`;
}

/** Salt's `_check_ignore_epoch`: without a choice, ignore the epoch unless the condition names one or is a range. */
export function ignoreEpochFor(oper: string, desired: string, ignoreEpoch: boolean | undefined): boolean {
  if (ignoreEpoch !== undefined) return ignoreEpoch;
  return !oper.includes('<') && !oper.includes('>') && !desired.includes(':');
}

/** `salt.utils.versions.compare`'s operators -> the cmp results that satisfy them. */
export const CMP_MAP: Record<string, number[]> = { '<': [-1], '<=': [-1, 0], '==': [0], '>=': [0, 1], '>': [1] };
