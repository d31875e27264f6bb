/**
 * The ipcidr matcher (`S@`, `-S`): an address must appear in the minion's `ipv4`/`ipv6` grain; a
 * network must contain one of its addresses. Parsing follows Python's `ipaddress` (strict: no
 * leading zeros in IPv4 octets, no host bits set in a network), because a Salt minion rejects what
 * it rejects.
 */

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
    if (p === undefined) return { error: `'${tgt}' has an invalid prefix or netmask` };
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

/** An IP address as Python's `ipaddress.ip_address` reads it. */
export interface Parsed {
  version: 4 | 6;
  value: bigint;
  text: string;
  scoped: boolean;
}

/** Python's `ipaddress.ip_address(s)`; undefined where it raises ValueError. */
export function parseAddress(s: string): Parsed | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { version: 4, value: v4, text: formatIPv4(v4), scoped: false };
  let scope = '';
  let body = s;
  const pct = s.indexOf('%');
  if (pct >= 0) {
    scope = s.slice(pct + 1);
    body = s.slice(0, pct);
    if (scope === '' || scope.includes('/')) return undefined;
  }
  const v6 = parseIPv6(body);
  if (v6 === undefined) return undefined;
  return { version: 6, value: v6, text: formatIPv6(v6) + (pct >= 0 ? `%${scope}` : ''), scoped: pct >= 0 };
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** CPython's `IPv6Address._ip_int_from_string`. */
function parseIPv6(s: string): bigint | undefined {
  const parts = s.split(':');
  if (parts.length < 3) return undefined;
  // An embedded IPv4 address stands for the last two groups.
  if (parts[parts.length - 1].includes('.')) {
    const v4 = parseIPv4(parts.pop()!);
    if (v4 === undefined) return undefined;
    parts.push((v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16));
  }
  if (parts.length > 9) return undefined;
  let skipIndex = -1;
  for (let i = 1; i < parts.length - 1; i++) {
    if (parts[i] !== '') continue;
    if (skipIndex >= 0) return undefined; // at most one '::'
    skipIndex = i;
  }
  let hi: number;
  let lo: number;
  let skipped: number;
  if (skipIndex >= 0) {
    hi = skipIndex;
    lo = parts.length - skipIndex - 1;
    if (parts[0] === '' && --hi !== 0) return undefined; // a lone leading ':'
    if (parts[parts.length - 1] === '' && --lo !== 0) return undefined; // a lone trailing ':'
    skipped = 8 - (hi + lo);
    if (skipped < 1) return undefined;
  } else {
    if (parts.length !== 8 || parts[0] === '' || parts[7] === '') return undefined;
    hi = 8;
    lo = 0;
    skipped = 0;
  }
  const groups = [...parts.slice(0, hi), ...new Array<string>(skipped).fill('0'), ...parts.slice(parts.length - lo)];
  let value = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return value;
}

/** A prefix length or netmask after `/`, as `ipaddress` reads it. */
export function parsePrefix(p: string, version: 4 | 6): number | undefined {
  const bits = version === 4 ? 32 : 128;
  if (/^\d+$/.test(p)) {
    const n = Number(p);
    return n <= bits ? n : undefined;
  }
  if (version === 6) return undefined;
  // IPv4 also accepts a netmask (255.255.255.0) or a host mask (0.0.0.255).
  const mask = parseIPv4(p);
  if (mask === undefined) return undefined;
  const asPrefix = (m: bigint): number | undefined => {
    const ones = m.toString(2).padStart(32, '0');
    return /^1*0*$/.test(ones) ? (ones.indexOf('0') === -1 ? 32 : ones.indexOf('0')) : undefined;
  };
  return asPrefix(mask) ?? asPrefix(mask ^ 0xffffffffn);
}

export function formatIPv4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => ((v >> s) & 0xffn).toString()).join('.');
}

/** RFC 5952 text, as Python prints it: lower case, longest run (2+) of zero groups as `::`. */
export function formatIPv6(v: bigint): string {
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((v >> s) & 0xffffn).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.join(':');
  const left = groups.slice(0, bestStart).join(':');
  const right = groups.slice(bestStart + bestLen).join(':');
  return `${left}::${right}`;
}
