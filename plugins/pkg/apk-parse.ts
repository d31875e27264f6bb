/**
 * Readers of apk output, as Salt's apkpkg reads them. Pure functions of the text, so the tests
 * need no apk (Debian hosts have none).
 */
import type { PkgVersions } from './apt-parse';

/** `name-1.2.3-r0` -> ['name', '1.2.3-r0']: the last two dash-separated fields are the version. */
export function splitApkName(line: string): [string, string] {
  const parts = line.split('-');
  return [parts.slice(0, -2).join('-'), parts.slice(-2).join('-')];
}

/** `apk info -v`: name -> versions (one line per installed package). */
export function parseApkInfo(out: string): PkgVersions {
  const ret: PkgVersions = {};
  for (const line of out.split('\n')) {
    if (!line.trim()) continue;
    const [name, version] = splitApkName(line.trim());
    (ret[name] ??= []).push(version);
  }
  for (const v of Object.values(ret)) v.sort();
  return ret;
}

/** `apk upgrade -s`: `(1/2) Upgrading busybox (1.36.1-r15 -> 1.36.1-r19)` -> {busybox: '1.36.1-r19'}. */
export function parseApkUpgrades(out: string): Record<string, string> {
  const ret: Record<string, string> = {};
  for (const line of out.split('\n')) {
    if (!line.includes('Upgrading')) continue;
    const words = line.split(' ');
    if (words.length >= 6) ret[words[2]] = words[5].replace(/\)+$/, '');
  }
  return ret;
}

/** `apk search NAME`: the version of exactly NAME among the `name-version` lines, or ''. */
export function parseApkSearch(out: string, name: string): string {
  for (const line of out.split('\n')) {
    const [n, v] = splitApkName(line.trim());
    if (n === name) return v;
  }
  return '';
}
