/** Pairs captured requests with their replies, and loads the vector keys, for the channel tests. */
import { createPrivateKey, KeyObject } from 'node:crypto';
import { WireMessage, keyPem, transcriptMessages, wireJson } from '../protocol/wire-vectors';

export interface Pair {
  source: string;
  req: WireMessage | undefined;
  rep: WireMessage;
  /** The minion id seen anywhere on this connection (omitted request stubs carry none). */
  connId?: string;
}

/** Every reply with the request it answers (same session and connection, the last one before it). */
export function requestReplyPairs(): Pair[] {
  const pairs: Pair[] = [];
  for (const session of ['s1', 's2'] as const) {
    const lastRequest = new Map<number, WireMessage>();
    const connIds = new Map<number, string>();
    const all = transcriptMessages(session);
    for (const m of all) {
      const id = m.outer?.id ?? m.load?.id;
      if (m.channel === 'req' && m.direction === 'minion->master' && typeof id === 'string') connIds.set(m.conn, id);
    }
    for (const m of all) {
      if (m.channel !== 'req' || !m.kind) continue;
      if (m.direction === 'minion->master') lastRequest.set(m.conn, m);
      else if (m.zmq_frames_hex) {
        pairs.push({ source: m.source, req: lastRequest.get(m.conn), rep: m, connId: connIds.get(m.conn) });
      }
    }
  }
  for (const file of ['auth.json', 'pillar.json', 'minion-event.json', 'return.json', 'cli-publish.json']) {
    for (const c of wireJson(file).cases) {
      pairs.push({ source: `${file}:${c.label}`, req: c.request, rep: c.reply });
    }
  }
  return pairs;
}

const keys = new Map<string, KeyObject>();
/** A vector private key by name (`master`, `web1`, ...), parsed once. */
export function privateKey(name: string): KeyObject {
  let k = keys.get(name);
  if (!k) {
    k = createPrivateKey(keyPem(`${name}.pem`));
    keys.set(name, k);
  }
  return k;
}
export function publicPem(name: string): string {
  return keyPem(`${name}.pub`);
}

/** The minion a request-port exchange belongs to, or null when the capture does not say. */
export function minionOf(p: Pair): string | null {
  const r = p.req;
  const id = r?.outer?.id ?? r?.load?.id ?? r?.decrypted?.id;
  if (typeof id === 'string') return id;
  if (p.connId) return p.connId;
  const fromLabel = /(web1|web2|db1)/.exec(p.source + ' ' + (p.rep.label ?? ''));
  if (fromLabel) return fromLabel[1];
  return null;
}
