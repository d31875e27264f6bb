/**
 * The ipcidr matcher (`S@`, `-S`): an address must appear in the minion's `ipv4`/`ipv6` grain; a
 * network must contain one of its addresses. Parsing follows Python's `ipaddress` (strict: no
 * leading zeros in IPv4 octets, no host bits set in a network), because a Salt minion rejects what
 * it rejects.
 */
import { formatIp, parseIp, parsePrefix } from '../pycompat/ipaddress';

export type IpTarget =
  { kind: 'address'; version: 4 | 6; text: string } | { kind: 'network'; version: 4 | 6; network: bigint; prefix: number };

/** Parse an ipcidr target; the reason it is invalid otherwise. */
export function parseIpTarget(tgt: string): IpTarget | { error: string } {
  const addr = parseAddress(tgt);
  if (addr !== undefined) return { kind: 'address', version: addr.version, text: addr.text };
  const slash = tgt.indexOf('/');
  const base = slash < 0 ? tgt : tgt.slice(0, slash);
  const net = parseAddress(base);
  if (net === undefined || net.scoped) return { error: `'${tgt}' is not an IP address or network` };
  const bits = net.version === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = parsePrefix(tgt.slice(slash + 1), net.version);
    if (p === null) return { error: `'${tgt}' has an invalid prefix or netmask` };
    prefix = p;
  }
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((net.value & hostMask) !== 0n) return { error: `'${tgt}' has host bits set` };
  return { kind: 'network', version: net.version, network: net.value, prefix };
}

/** Whether the minion's grains satisfy a parsed ipcidr target. */
export function ipTargetMatches(target: IpTarget, grains: Record<string, unknown>): boolean {
  const proto = `ipv${target.version}`;
  if (!Object.prototype.hasOwnProperty.call(grains, proto)) return false;
  const have = grains[proto];
  if (target.kind === 'address') {
    // Salt: `str(address) in grains[proto]`, a string comparison with the canonical form.
    if (typeof have === 'string') return have.includes(target.text);
    return Array.isArray(have) && have.some((h) => h === target.text);
  }
  const list = Array.isArray(have) ? have : [have];
  const bits = target.version === 4 ? 32 : 128;
  return list.some((item) => {
    if (typeof item !== 'string') return false;
    const a = parseAddress(item);
    if (a === undefined || a.version !== target.version) return false;
    return a.value >> BigInt(bits - target.prefix) === target.network >> BigInt(bits - target.prefix);
  });
}

interface Parsed {
  version: 4 | 6;
  value: bigint;
  text: string;
  scoped: boolean;
}

function parseAddress(s: string): Parsed | undefined {
  const v4 = parseIp(s);
  if (v4?.version === 4) return { ...v4, text: formatIp(v4), scoped: false };
  let scope = '';
  let body = s;
  const pct = s.indexOf('%');
  if (pct >= 0) {
    scope = s.slice(pct + 1);
    body = s.slice(0, pct);
    if (scope === '' || scope.includes('/')) return undefined;
  }
  const v6 = parseIp(body);
  if (v6?.version !== 6) return undefined;
  return { ...v6, text: formatIp(v6) + (pct >= 0 ? `%${scope}` : ''), scoped: pct >= 0 };
}
