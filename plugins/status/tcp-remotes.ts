/**
 * Salt's salt.utils.network._remotes_on from /proc/net/tcp and /proc/net/tcp6: the remote
 * addresses of ESTABLISHED connections whose remote port is `port`.
 */

/** /proc/net/tcp's address: 8 hex digits, the 32-bit word in host (little-endian) order. */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** /proc/net/tcp6's address: four 32-bit words, each in host order; written compressed as Python's ipaddress. */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) for (const i of [6, 4, 2, 0]) bytes.push(parseInt(hex.slice(w * 8 + i, w * 8 + i + 2), 16));
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = Array.from({ length: 8 }, (_, g) => ((bytes[g * 2] << 8) | bytes[g * 2 + 1]).toString(16));
  // The longest run of zero groups (two or more) becomes '::'.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** The remote addresses (IPv4 as a.b.c.d; a v4-mapped IPv6 peer gives both forms) on `port`. */
export function remotesOnPort(tables: ReadonlyArray<{ v6: boolean; text: string }>, port: number): Set<string> {
  const out = new Set<string>();
  for (const { v6, text } of tables) {
    for (const line of text.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4 || f[0] === 'sl') continue;
      const [addr, portHex] = f[2].split(':');
      // st 01 = ESTABLISHED.
      if (portHex === undefined || parseInt(portHex, 16) !== port || parseInt(f[3], 16) !== 1) continue;
      const ip = v6 ? ipv6(addr) : ipv4(addr);
      out.add(ip);
      if (ip.startsWith('::ffff:') && ip.includes('.')) out.add(ip.slice('::ffff:'.length));
    }
  }
  return out;
}
