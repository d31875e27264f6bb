/**
 * /etc/hosts as the C library's "files" lookups read it, so the Node sources can answer getfqdn()
 * the way Python does on a host whose name lives only in /etc/hosts (Node's dns.reverse asks DNS
 * only and never reads the file).
 */
import { pyLines, pySplit } from '../../pycompat';

/** node:net's isIP, loaded on first use: a minion whose id is configured never reads /etc/hosts (node:net is ~3 ms of a start). */
export function isIP(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:net') as typeof import('node:net')).isIP(text);
}

export interface HostsEntry {
  address: string;
  /** The canonical name first, then the aliases. */
  names: string[];
}

export function parseHostsFile(text: string): HostsEntry[] {
  const entries: HostsEntry[] = [];
  for (const line of pyLines(text)) {
    const tokens = pySplit(line.split('#')[0]);
    if (tokens.length < 2 || isIP(tokens[0]) === 0) continue;
    entries.push({ address: tokens[0], names: tokens.slice(1) });
  }
  return entries;
}

/** The address of the first entry naming `name` (names compare case-insensitively). */
export function addressOf(entries: readonly HostsEntry[], name: string): string | null {
  const want = name.toLowerCase();
  const hit = entries.find((e) => e.names.some((n) => n.toLowerCase() === want));
  return hit ? hit.address : null;
}

/** The names of the first entry for `address` (compared as addresses, so `::1` equals `0::1`). */
export function namesOf(entries: readonly HostsEntry[], address: string): string[] | null {
  const want = canonicalAddress(address);
  if (want === null) return null;
  const hit = entries.find((e) => canonicalAddress(e.address) === want);
  return hit ? hit.names : null;
}

/** The canonical name (first name) of the first entry naming `name`, as AI_CANONNAME reports it. */
export function canonicalNameOf(entries: readonly HostsEntry[], name: string): string | null {
  const want = name.toLowerCase();
  const hit = entries.find((e) => e.names.some((n) => n.toLowerCase() === want));
  return hit ? hit.names[0] : null;
}

function canonicalAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return null;
  // The URL parser prints IPv6 in its one canonical compressed form.
  return new URL(`http://[${address.split('%')[0]}]/`).hostname;
}
