/**
 * Warnings Salt does not give: an id that many hosts will share (a loopback name, an image's
 * default host name) and a cached id that no longer matches the host. Each says the exact fix.
 */
import { loopbackMatcher, type CandidateReport, type CandidateSource } from './candidates';
import { isIPv4 } from './ipv4';
import { pyLines, pySplit, pyStrip } from '../../pycompat';

/**
 * Host names OS installers and images ship with, so every clone of an image comes up with the
 * same one. Kept short on purpose: cloud defaults such as `ip-10-0-0-5` embed the private address
 * and are unique within a network, so they are not listed.
 */
export const GENERIC_HOST_NAMES: readonly string[] = [
  'debian',
  'ubuntu',
  'raspberrypi',
  'fedora',
  'centos',
  'alpine',
  'archlinux',
  'vagrant',
];

export type IdKind = 'loopback' | 'generic' | null;

/** Whether the id is one that several hosts are likely to share. */
export function sharedIdKind(id: string): IdKind {
  if (loopbackMatcher(id) !== null) return 'loopback';
  const label = id.split('.')[0].toLowerCase();
  return GENERIC_HOST_NAMES.includes(label) ? 'generic' : null;
}

/**
 * The /etc/hosts line that maps this host's own name to a loopback address, when getfqdn()
 * answered a loopback name because of it (the field case: `127.0.0.1 web7` under
 * `127.0.0.1 localhost.localdomain localhost`).
 */
export function offendingHostsLine(report: CandidateReport): string | null {
  if (report.hostsText === null || loopbackMatcher(report.fqdn) === null) return null;
  const own = new Set([report.hostname, report.nodename].filter((n) => n).map((n) => n.toLowerCase()));
  for (const raw of pyLines(report.hostsText)) {
    const tokens = pySplit(pyStrip(raw).split('#')[0]);
    if (tokens.length < 2) continue;
    const loopbackAddress = tokens[0].startsWith('127.') || tokens[0] === '::1';
    if (loopbackAddress && tokens.slice(1).some((t) => own.has(t.toLowerCase()) && loopbackMatcher(t) === null)) {
      return pyStrip(raw);
    }
  }
  return null;
}

export interface WarningContext {
  id: string;
  rule: 'config' | 'cache' | CandidateSource | 'fallback';
  configDir: string;
  cachePath: string;
  /** Whether the id now sits in the cache file (read from it, or a guess just written to it). */
  inCache: boolean;
  /** What a fresh guess found (absent when the id came from the config: no lookups then). */
  report?: CandidateReport;
  /** The id a fresh guess gives now (after lowercase / remove_domain), and where it came from. */
  fresh?: { id: string; source: CandidateSource | 'fallback' };
}

function usable(name: string | undefined): name is string {
  return !!name && sharedIdKind(name) === null;
}

function restartSteps(ctx: WarningContext): string {
  return ctx.inCache ? `delete ${ctx.cachePath}, then restart salt-minion` : 'then restart salt-minion';
}

/** The warning for a loopback-like or generic id, or null when the id looks like this host's own. */
export function sharedIdWarning(ctx: WarningContext): string | null {
  const kind = sharedIdKind(ctx.id);
  if (kind === null) return null;
  const what =
    kind === 'loopback' ? `is a loopback name` : `is a default host name that OS images ship with (${GENERIC_HOST_NAMES.join(', ')})`;
  const consequence =
    `every host that ends up with it signs in as "${ctx.id}"; the master accepts the first key ` + `under that id and rejects the others`;
  const suggestion = usable(ctx.fresh?.id) ? `"id: ${ctx.fresh.id}"` : `"id: <a name unique to this host>"`;
  const minionFile = `${ctx.configDir}/minion`;
  const fixes: string[] = [];
  if (ctx.rule === 'config') {
    fixes.push(`set ${suggestion} in ${minionFile} (the id comes from the id: option there), then restart salt-minion`);
  } else {
    fixes.push(`set ${suggestion} in ${minionFile}, then restart salt-minion`);
    const line = ctx.report ? offendingHostsLine(ctx.report) : null;
    if (line !== null) {
      fixes.push(
        `or fix /etc/hosts: the line "${line}" maps this host's name to a loopback address, so ` +
          `getfqdn() answers "${ctx.report?.fqdn}"; give the name its real address (or 127.0.1.1), ` +
          restartSteps(ctx),
      );
    } else if (kind === 'generic' || ctx.rule === 'fallback') {
      fixes.push(`or give the host a unique name (hostnamectl set-hostname <name>), ${restartSteps(ctx)}`);
    } else if (ctx.rule === 'cache') {
      fixes.push(`or ${restartSteps(ctx)} so the id is guessed again`);
    }
  }
  const freshNews =
    ctx.rule === 'cache' && usable(ctx.fresh?.id) && ctx.fresh.id !== ctx.id ? `; a fresh guess now gives "${ctx.fresh.id}"` : '';
  const source =
    ctx.rule === 'cache' ? ` (read from ${ctx.cachePath}${freshNews})` : ctx.rule === 'config' ? ` (set in ${minionFile})` : '';
  return `The minion id "${ctx.id}"${source} ${what}: ${consequence}. Fix: ${fixes.join('; ')}.`;
}

/** The warning for a cached id that differs from what the host is called now, or null. */
export function staleCacheWarning(ctx: WarningContext): string | null {
  if (ctx.rule !== 'cache' || !ctx.fresh || ctx.fresh.source === 'fallback' || ctx.fresh.id === ctx.id) return null;
  // A loopback or generic cached id already gets sharedIdWarning, which carries the fresh guess.
  if (sharedIdKind(ctx.id) !== null) return null;
  const minionFile = `${ctx.configDir}/minion`;
  return (
    `The cached minion id "${ctx.id}" in ${ctx.cachePath} no longer matches this host: a fresh guess ` +
    `gives "${ctx.fresh.id}" (from ${describeSource(ctx.fresh.source)}), but the minion keeps signing in ` +
    `as "${ctx.id}". Fix: if "${ctx.fresh.id}" is right, delete ${ctx.cachePath} (or set "id: ${ctx.fresh.id}" ` +
    `in ${minionFile}) and restart salt-minion; if "${ctx.id}" is right, set "id: ${ctx.id}" in ${minionFile} ` +
    `so the cache no longer decides.`
  );
}

/** The warning for append_domain turning an IPv4 id from the config or cache into a non-address. */
export function appendedToIPv4Warning(before: string, after: string, ctx: WarningContext): string | null {
  if (before === after || !isIPv4(before)) return null;
  return (
    `append_domain turned the IPv4 id "${before}" (${ctx.rule === 'cache' ? `read from ${ctx.cachePath}` : `set in ${ctx.configDir}/minion`}) ` +
    `into "${after}", as Salt does for an id that was not just guessed; a freshly guessed IPv4 id is left ` +
    `alone, so this minion's id changed from its first start. Fix: set "id: ${after}" or "id: ${before}" in ` +
    `${ctx.configDir}/minion (or remove append_domain), then restart salt-minion.`
  );
}

/** How a candidate source reads in a sentence. */
export function describeSource(source: CandidateSource | 'fallback'): string {
  switch (source) {
    case 'getfqdn':
      return 'getfqdn() of the host name';
    case 'nodename':
      return 'the kernel node name (platform.node())';
    case 'gethostname':
      return 'gethostname()';
    case 'getaddrinfo':
      return 'the canonical name getaddrinfo() gives for "localhost"';
    case 'ip':
      return "the lowest non-loopback IPv4 address of the host's interfaces";
    case 'fallback':
      return "Salt's fallback";
    default:
      return source;
  }
}
