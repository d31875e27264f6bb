/**
 * Which minions are connected, as Salt's CkMinions.connected_ids finds them: the remote
 * addresses of the established connections to the master's publish port (from /proc/net/tcp
 * and tcp6), matched against the `ipv4`/`ipv6` grains each accepted minion reported; and Salt's
 * presence events, fired from that.
 */
import { readFileSync } from 'node:fs';

const ESTABLISHED = '01';

/** /proc/net/tcp's hex address as text: 0100007F -> 127.0.0.1. */
function ipv4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

/** /proc/net/tcp6's hex address (four little-endian words); v4-mapped addresses come back as v4. */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(Number.parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** Remote addresses with an established connection to local `port`. */
export function peersOfPort(port: number, read: ProcReader = (p) => readFileSync(p, 'utf8')): Set<string> {
  const peers = new Set<string>();
  for (const [file, decodeAddr] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let text: string;
    try {
      text = read(file);
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== ESTABLISHED) continue;
      const [, localPort] = cols[1].split(':');
      const [remoteAddr] = cols[2].split(':');
      if (Number.parseInt(localPort, 16) === port) peers.add(decodeAddr(remoteAddr));
    }
  }
  return peers;
}

/** Reads a /proc file (a test gives its own). */
export type ProcReader = (path: string) => string;

/** The accepted minions whose reported addresses hold a connection to the publish port. */
export function connectedMinions(
  publishPort: number,
  accepted: Iterable<string>,
  grainsOf: (id: string) => Record<string, unknown> | undefined,
  read?: ProcReader,
): string[] {
  const peers = peersOfPort(publishPort, read);
  const out: string[] = [];
  for (const id of accepted) {
    const grains = grainsOf(id) ?? {};
    const addrs = [...(Array.isArray(grains.ipv4) ? grains.ipv4 : []), ...(Array.isArray(grains.ipv6) ? grains.ipv6 : [])].map(String);
    if (addrs.some((a) => peers.has(a))) out.push(id);
  }
  return out;
}

/**
 * Salt's `presence_events` (Maintenance.handle_presence), one check each loop_interval:
 * `salt/presence/change` `{new, lost}` when the connected minions changed since the last check,
 * then `salt/presence/present` `{present}` every time.
 */
export class PresenceWatch {
  private present = new Set<string>();

  constructor(
    private readonly connected: () => string[],
    private readonly fire: (tag: string, data: Record<string, unknown>) => void,
  ) {}

  check(): void {
    const now = new Set(this.connected());
    const added = [...now].filter((id) => !this.present.has(id));
    const lost = [...this.present].filter((id) => !now.has(id));
    if (added.length > 0 || lost.length > 0) this.fire('salt/presence/change', { new: added, lost });
    this.fire('salt/presence/present', { present: [...now] });
    this.present = now;
  }
}
