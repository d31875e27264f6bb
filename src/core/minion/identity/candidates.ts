/**
 * Salt 3007's `salt.utils.network._generate_minion_id()`: the ordered, de-duplicated list of names
 * this host could use as its minion id, loopback-looking names dropped.
 */
import type { IdentityLog, IdentitySources } from './identity-sources';
import { isLoopbackIPv4, parseIPv4 } from './ipv4';
import { pyLines, pySplit, pyStrip } from '../../pycompat';

export type CandidateSource =
  'getfqdn' | 'nodename' | 'gethostname' | 'getaddrinfo' | '/etc/hostname' | '/etc/nodename' | '/etc/hosts' | 'ip';

export interface Candidate {
  name: string;
  source: CandidateSource;
  /** The file line it came from, for the file sources. */
  line?: string;
}

export interface DroppedCandidate extends Candidate {
  /** The matcher (Salt's pattern text) that dropped it. */
  matcher: string;
}

/** The list and the raw facts behind it, so warnings can point at the cause. */
export interface CandidateReport {
  candidates: Candidate[];
  /** Names dropped as loopback-like, in the order met (duplicates of kept names are not listed). */
  dropped: DroppedCandidate[];
  hostname: string;
  nodename: string;
  /** What getfqdn(gethostname()) answered. */
  fqdn: string;
  /** /etc/hosts as read, or null. */
  hostsText: string | null;
}

/** Salt's `DistinctList.localhost_matchers`, applied with `re.match` (anchored at the start only). */
export const LOCALHOST_MATCHERS: readonly string[] = [
  'localhost.*',
  'ip6-.*',
  '127[.]\\d',
  '0\\.0\\.0\\.0',
  '::1.*',
  'ipv6-.*',
  'fe00::.*',
  'fe02::.*',
  '1.0.0.*.ip6.arpa',
];

// Python 3's \d on str patterns is any Unicode decimal digit.
const COMPILED = LOCALHOST_MATCHERS.map((src) => ({
  src,
  re: new RegExp(`^(?:${src.replace(/\\d/g, '\\p{Nd}')})`, 'u'),
}));

/** The Salt matcher that drops this name as loopback-like, or null when it is kept. */
export function loopbackMatcher(name: string): string | null {
  for (const { src, re } of COMPILED) if (re.test(name)) return src;
  return null;
}

// Salt reads these in order; its Windows hosts path (%WINDIR%\system32\drivers\etc\hosts) is not
// used because brine minions run on Unix hosts.
export const HOST_FILES = ['/etc/hostname', '/etc/nodename', '/etc/hosts'] as const;

class DistinctList {
  readonly kept: Candidate[] = [];
  readonly dropped: DroppedCandidate[] = [];

  append(c: Candidate): void {
    if (!c.name || this.kept.some((k) => k.name === c.name)) return;
    const matcher = loopbackMatcher(c.name);
    if (matcher !== null) {
      if (!this.dropped.some((d) => d.name === c.name)) this.dropped.push({ ...c, matcher });
      return;
    }
    this.kept.push(c);
  }
}

/**
 * The tokens a host-file line contributes: comments cut at `#`; a line counts when its first token
 * starts with `127.` or is `::1`, or when it holds a single token (as /etc/hostname does).
 */
export function hostFileTokens(line: string): string[] {
  const tokens = pySplit(pyStrip(line).split('#')[0]);
  if (tokens.length === 0) return [];
  const head = tokens[0].slice(0, 4);
  return head === '127.' || head === '::1' || tokens.length === 1 ? tokens : [];
}

/** Non-loopback IPv4 addresses, unique, in numeric order (Salt's `ip_addrs()`); garbage skipped. */
export function sortedHostIPv4(addresses: readonly string[]): string[] {
  const seen = new Map<number, string>();
  for (const a of addresses) {
    const n = typeof a === 'string' ? parseIPv4(a) : null;
    if (n !== null && !isLoopbackIPv4(a) && !seen.has(n)) seen.set(n, a);
  }
  return [...seen.entries()].sort((x, y) => x[0] - y[0]).map(([, a]) => a);
}

async function ask<T>(what: string, fallback: T, fn: () => Promise<T>, log: IdentityLog): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    log.warning(`Cannot read ${what} while guessing the minion id: ${(err as Error).message ?? String(err)}`);
    return fallback;
  }
}

/** Collects the candidates in Salt's order from the given sources. */
export async function collectCandidates(sources: IdentitySources, log: IdentityLog): Promise<CandidateReport> {
  const list = new DistinctList();
  const hostname = String(await ask('gethostname()', '', () => sources.gethostname(), log));
  const fqdn = String(await ask('getfqdn()', hostname, () => sources.getfqdn(hostname), log));
  const nodename = String(await ask('the node name', '', () => sources.nodename(), log));
  list.append({ name: fqdn, source: 'getfqdn' });
  list.append({ name: nodename, source: 'nodename' });
  list.append({ name: hostname, source: 'gethostname' });

  if (list.kept.length === 0) {
    // Salt asks getaddrinfo for the canonical name of "localhost" when nothing else was usable.
    const canon = await ask('getaddrinfo("localhost")', null, () => sources.canonicalName('localhost'), log);
    if (canon) list.append({ name: canon, source: 'getaddrinfo' });
  }

  let hostsText: string | null = null;
  for (const file of HOST_FILES) {
    const text = await ask(file, null, () => sources.readSystemFile(file), log);
    if (file === '/etc/hosts') hostsText = text;
    if (text === null) continue;
    for (const line of pyLines(text)) {
      for (const token of hostFileTokens(line)) list.append({ name: token, source: file, line: pyStrip(line) });
    }
  }

  const addresses = await ask('the interface addresses', [] as string[], () => sources.ipv4Addresses(), log);
  for (const ip of sortedHostIPv4(Array.isArray(addresses) ? addresses : [])) list.append({ name: ip, source: 'ip' });

  return { candidates: list.kept, dropped: list.dropped, hostname, nodename, fqdn, hostsText };
}
