/**
 * Which `pkg` backend a host gets, as Salt's `__virtual__` of aptpkg, yumpkg and apkpkg decide:
 * by the `os_family` grain (and, for the RHEL family, which of dnf5/dnf/tdnf/yum is on PATH).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The os_family values some built-in pkg backend serves. */
export const PKG_FAMILIES: readonly string[] = ['Debian', 'RedHat', 'Alpine'];

/** Distributions Salt's yumpkg serves although their os_family is not RedHat. */
const YUM_OSES = ['amazon', 'xcp', 'xenserver', 'virtuozzolinux', 'virtuozzo', 'issabel pbx', 'openeuler'];

/** Why no pkg backend fits, in one sentence naming what each one needs (every backend gives the same reason). */
export function noBackend(grains: Record<string, unknown>): string {
  if (isRedHatFamily(grains) && yumBinary() === null) return 'DNF nor YUM found';
  return (
    "brine's pkg modules are apt (os_family Debian), dnf/yum (os_family RedHat) and apk (os_family Alpine); " +
    `this host's os_family is ${String(grains.os_family ?? 'unknown')}`
  );
}

export function isRedHatFamily(grains: Record<string, unknown>): boolean {
  return String(grains.os_family ?? '').toLowerCase() === 'redhat' || YUM_OSES.includes(String(grains.os ?? '').toLowerCase());
}

/** Salt's `_yum()`: the first of dnf5, dnf, tdnf, yum found executable on PATH, per PATH entry. */
export function yumBinary(path = process.env.PATH ?? '/usr/bin:/bin'): string | null {
  return findOnPath(['dnf5', 'dnf', 'tdnf', 'yum'], path);
}

/**
 * The first of `names` found executable on PATH, looking through each PATH entry in turn (for a
 * module's `available`, which cannot wait for IShell.which).
 */
export function findOnPath(names: readonly string[], path = process.env.PATH ?? '/usr/bin:/bin'): string | null {
  for (const dir of path.split(delimiter)) {
    for (const bin of names) {
      try {
        accessSync(join(dir, bin), constants.X_OK);
        return bin;
      } catch {
        // not in this PATH entry
      }
    }
  }
  return null;
}
