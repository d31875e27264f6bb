/** Reads the shared Salt wire vectors at test time from <repo>/../shared/salt-wire (never copies). */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const SALT_WIRE = path.resolve(__dirname, '../../..', '..', 'shared/salt-wire');

export type Json = any;

const cache = new Map<string, Json>();
export function wireJson(name: string): Json {
  let v = cache.get(name);
  if (v === undefined) {
    v = JSON.parse(readFileSync(path.join(SALT_WIRE, name), 'utf8'));
    cache.set(name, v);
  }
  return v;
}

export function keyPem(name: string): string {
  return readFileSync(path.join(SALT_WIRE, 'keys', name), 'utf8');
}

/** A captured message (a transcript entry or one side of a per-kind case). */
export interface WireMessage {
  source: string;
  kind: string;
  session: string;
  conn: number;
  direction: string;
  zmq_frames_hex: string[];
  [field: string]: Json;
}

const PER_KIND = ['auth.json', 'pillar.json', 'minion-event.json', 'return.json', 'cli-publish.json', 'publish.json'];

/** Every message vector that carries frames, in both transcripts and the per-kind files. */
export function allMessages(): WireMessage[] {
  const out: WireMessage[] = [];
  for (const file of ['transcript-session1.json', 'transcript-session2.json']) {
    wireJson(file).messages.forEach((m: Json, i: number) => {
      if (m.zmq_frames_hex) out.push({ ...m, source: `${file}#${i}` });
    });
  }
  for (const file of PER_KIND) {
    for (const c of wireJson(file).cases) {
      if (c.zmq_frames_hex) out.push({ ...c, source: `${file}:${c.label}` });
      for (const side of ['request', 'reply']) {
        const m = c[side];
        if (m && m.zmq_frames_hex) out.push({ ...m, source: `${file}:${c.label}/${side}` });
      }
    }
  }
  return out;
}

/** Every entry of one transcript (ZMTP commands and omitted stubs included), in capture order. */
export function transcriptMessages(session: 's1' | 's2'): WireMessage[] {
  const file = session === 's1' ? 'transcript-session1.json' : 'transcript-session2.json';
  return wireJson(file).messages.map((m: Json, i: number) => ({ ...m, source: `${file}#${i}` }));
}

export function lastFrame(m: WireMessage): Buffer {
  return Buffer.from(m.zmq_frames_hex[m.zmq_frames_hex.length - 1], 'hex');
}

/** The JSON rendering of decoded msgpack -> the value our decoder should give. */
export function fromJson(v: Json): unknown {
  if (Array.isArray(v)) return v.map(fromJson);
  if (v !== null && typeof v === 'object') {
    if (typeof v.$bytes_b64 === 'string' && Object.keys(v).length === 1) return Buffer.from(v.$bytes_b64, 'base64');
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = fromJson(v[k]);
    return out;
  }
  return v;
}

/** Bytes of a JSON value that is either `{$bytes_b64}` or a (UTF-8) string. */
export function jsonBytes(v: Json): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  return Buffer.from(v.$bytes_b64, 'base64');
}

export const MINION_KEYS = ['web1', 'web2', 'db1'] as const;
