/**
 * The local account databases (/etc/passwd, /etc/group, /etc/shadow), read as Python's `pwd`,
 * `grp` and `spwd` read them on a host without NSS extras.
 *
 * @example
 * import { userByName } from 'brine/plugin';
 * userByName('root')?.uid; // 0 `root` stands for `/` (tests point it
 * at a temporary tree; Salt's `root=` argument of the user functions means the same).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PasswdEntry {
  name: string;
  passwd: string;
  uid: number;
  gid: number;
  gecos: string;
  dir: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  passwd: string;
  gid: number;
  members: string[];
}

export interface ShadowEntry {
  name: string;
  passwd: string;
  lstchg: number;
  min: number;
  max: number;
  warn: number;
  inact: number;
  expire: number;
}

function lines(root: string, file: string): string[][] {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('+') && !l.startsWith('-'))
    .map((l) => l.split(':'));
}

/** An empty shadow field reads as -1 (Python's spwd). */
const num = (s: string | undefined): number => (s === undefined || s === '' ? -1 : Number(s));

export function passwdEntries(root = '/'): PasswdEntry[] {
  return lines(root, 'etc/passwd')
    .filter((f) => f.length >= 7)
    .map((f) => ({ name: f[0], passwd: f[1], uid: Number(f[2]), gid: Number(f[3]), gecos: f[4], dir: f[5], shell: f[6] }));
}

export function groupEntries(root = '/'): GroupEntry[] {
  return lines(root, 'etc/group')
    .filter((f) => f.length >= 4)
    .map((f) => ({ name: f[0], passwd: f[1], gid: Number(f[2]), members: f[3] === '' ? [] : f[3].split(',') }));
}

export function shadowEntries(root = '/'): ShadowEntry[] {
  return lines(root, 'etc/shadow')
    .filter((f) => f.length >= 8)
    .map((f) => ({
      name: f[0],
      passwd: f[1],
      lstchg: num(f[2]),
      min: num(f[3]),
      max: num(f[4]),
      warn: num(f[5]),
      inact: num(f[6]),
      expire: num(f[7]),
    }));
}

export const userByName = (name: string, root = '/'): PasswdEntry | undefined => passwdEntries(root).find((e) => e.name === name);
export const userById = (uid: number, root = '/'): PasswdEntry | undefined => passwdEntries(root).find((e) => e.uid === uid);
export const groupByName = (name: string, root = '/'): GroupEntry | undefined => groupEntries(root).find((e) => e.name === name);
export const groupById = (gid: number, root = '/'): GroupEntry | undefined => groupEntries(root).find((e) => e.gid === gid);
