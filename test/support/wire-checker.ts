/**
 * An independent checker of Salt wire messages, written only from ../shared/salt-wire/README.md's
 * rules. It uses node:crypto directly and its own minimal msgpack reader, and nothing from src/, so
 * that brine's builders are judged by something that does not share their bugs.
 *
 * Every check throws `WireViolation` with a description of the broken rule.
 */
import {
  KeyObject,
  constants,
  createDecipheriv,
  createHash,
  createHmac,
  createPublicKey,
  privateDecrypt,
  timingSafeEqual,
  verify,
} from 'node:crypto';

export class WireViolation extends Error {}

function fail(rule: string): never {
  throw new WireViolation(rule);
}

/** Raw strings stay bytes here: the checker decides per field whether it is text. */
export interface MsgMap {
  map: Array<[string, Value]>;
}
export type Value = null | boolean | number | Buffer | Value[] | MsgMap;

/** Minimal msgpack reader for what Salt sends; str8 and bin are violations (use_bin_type=False). */
export function readMsgpack(buf: Buffer): Value {
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > buf.length) fail(`msgpack: truncated at ${pos}`);
  };
  const raw = (n: number): Buffer => {
    need(n);
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const read = (): Value => {
    need(1);
    const t = buf[pos++];
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 256;
    if ((t & 0xe0) === 0xa0) return raw(t & 0x1f);
    if ((t & 0xf0) === 0x90) return arr(t & 0x0f);
    if ((t & 0xf0) === 0x80) return map(t & 0x0f);
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xcc:
        need(1);
        return buf[pos++];
      case 0xcd:
        need(2);
        pos += 2;
        return buf.readUInt16BE(pos - 2);
      case 0xce:
        need(4);
        pos += 4;
        return buf.readUInt32BE(pos - 4);
      case 0xd0:
        need(1);
        return buf.readInt8(pos++);
      case 0xd1:
        need(2);
        pos += 2;
        return buf.readInt16BE(pos - 2);
      case 0xd2:
        need(4);
        pos += 4;
        return buf.readInt32BE(pos - 4);
      case 0xcb:
        need(8);
        pos += 8;
        return buf.readDoubleBE(pos - 8);
      case 0xda: {
        need(2);
        const n = buf.readUInt16BE(pos);
        pos += 2;
        if (n < 32) fail('msgpack: str16 used for a raw shorter than 32 bytes (not the smallest form)');
        return raw(n);
      }
      case 0xdb: {
        need(4);
        const n = buf.readUInt32BE(pos);
        pos += 4;
        if (n < 0x10000) fail('msgpack: str32 used for a raw shorter than 65536 bytes');
        return raw(n);
      }
      case 0xdc:
        need(2);
        pos += 2;
        return arr(buf.readUInt16BE(pos - 2));
      case 0xde:
        need(2);
        pos += 2;
        return map(buf.readUInt16BE(pos - 2));
      case 0xd9:
        return fail('msgpack: str8 (0xd9) is never emitted by Salt');
      case 0xc4:
      case 0xc5:
      case 0xc6:
        return fail('msgpack: bin types are never emitted by Salt');
      default:
        return fail(`msgpack: type 0x${t.toString(16)} not expected in Salt messages`);
    }
  };
  const arr = (n: number): Value[] => Array.from({ length: n }, () => read());
  const map = (n: number): MsgMap => {
    const entries: Array<[string, Value]> = [];
    for (let i = 0; i < n; i++) {
      const k = read();
      if (!Buffer.isBuffer(k)) fail('msgpack: map key is not a raw string');
      entries.push([k.toString('utf8'), read()]);
    }
    return { map: entries };
  };
  const v = read();
  if (pos !== buf.length) fail('msgpack: trailing bytes');
  return v;
}

export function isMap(v: Value): v is MsgMap {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && !Array.isArray(v);
}
export function keysOf(v: Value): string[] {
  if (!isMap(v)) fail('expected a map');
  return v.map.map(([k]) => k);
}
export function field(v: Value, name: string): Value {
  if (!isMap(v)) fail(`expected a map holding '${name}'`);
  const hit = v.map.find(([k]) => k === name);
  if (!hit) fail(`missing field '${name}'`);
  return hit[1];
}
export function rawField(v: Value, name: string): Buffer {
  const f = field(v, name);
  if (!Buffer.isBuffer(f)) fail(`field '${name}' is not a raw string`);
  return f;
}
export function textField(v: Value, name: string): string {
  return rawField(v, name).toString('utf8');
}

/** Crypticle per the README: key = b64(56 bytes) -> AES-192 key (24) + HMAC key (32). */
export function crypticleOpen(keyString: string, msg: Buffer): Buffer {
  const key = Buffer.from(keyString, 'base64');
  if (key.length !== 56) fail('Crypticle key string must decode to 56 bytes');
  if (msg.length < 16 + 16 + 32 || (msg.length - 48) % 16 !== 0) fail('Crypticle message has a bad length');
  const mac = createHmac('sha256', key.subarray(24))
    .update(msg.subarray(0, msg.length - 32))
    .digest();
  if (!timingSafeEqual(mac, msg.subarray(msg.length - 32))) fail('Crypticle HMAC does not match');
  const d = createDecipheriv('aes-192-cbc', key.subarray(0, 24), msg.subarray(0, 16));
  const plain = Buffer.concat([d.update(msg.subarray(16, msg.length - 32)), d.final()]);
  if (!plain.subarray(0, 8).equals(Buffer.from('pickle::'))) fail('Crypticle plaintext does not start with pickle::');
  return plain.subarray(8);
}

export function oaepOpen(priv: KeyObject | string, data: Buffer): Buffer {
  return privateDecrypt({ key: priv, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, data);
}

export function pkcs1Valid(pub: KeyObject | string, data: Buffer, sig: Buffer): boolean {
  const key = typeof pub === 'string' ? createPublicKey(pub) : pub;
  return verify('sha1', data, { key, padding: constants.RSA_PKCS1_PADDING }, sig);
}

/** X9.31 open per the README: r = s^e mod n; if r mod 16 != 12 then r = n - r; strip 6B BB..BA / 6A and CC. */
export function x931OpenIndependent(pub: KeyObject | string, sig: Buffer): Buffer {
  const jwk = (typeof pub === 'string' ? createPublicKey(pub) : createPublicKey(pub)).export({ format: 'jwk' });
  const big = (b64u: string) => BigInt('0x' + Buffer.from(b64u, 'base64url').toString('hex'));
  const n = big(jwk.n as string);
  const e = big(jwk.e as string);
  const size = Buffer.from(jwk.n as string, 'base64url').length;
  let r = 1n;
  let base = BigInt('0x' + (sig.toString('hex') || '0')) % n;
  for (let x = e; x > 0n; x >>= 1n) {
    if (x & 1n) r = (r * base) % n;
    base = (base * base) % n;
  }
  if (r % 16n !== 12n) r = n - r;
  const block = Buffer.from(r.toString(16).padStart(size * 2, '0'), 'hex');
  if (block[block.length - 1] !== 0xcc) fail('X9.31: block does not end in CC');
  let i: number;
  if (block[0] === 0x6a) i = 1;
  else if (block[0] === 0x6b) {
    i = 1;
    while (block[i] === 0xbb) i++;
    if (block[i] !== 0xba) fail('X9.31: padding does not end in BA');
    i++;
  } else return fail('X9.31: block does not start with 6A/6B');
  return block.subarray(i, block.length - 1);
}

function nonceOk(n: string): void {
  if (!/^[0-9a-f]{32}$/.test(n)) fail(`nonce ${n} is not uuid4 hex (32 chars)`);
}

/** An `_auth` reply: signed clear load; pending/rejected or accepted with OAEP fields and X9.31 sig. */
export function checkAuthReply(
  frame: Buffer,
  masterPub: string,
  minionPriv: string,
  nonce: string,
): { kind: 'pending' | 'rejected' } | { kind: 'accepted'; aes: string; session: string; token?: string; port: number } {
  const outer = readMsgpack(frame);
  if (keysOf(outer).join() !== 'enc,load,sig') fail('auth reply outer keys must be enc, load, sig');
  if (textField(outer, 'enc') !== 'clear') fail("auth reply enc must be 'clear'");
  const load = rawField(outer, 'load');
  if (!pkcs1Valid(masterPub, load, rawField(outer, 'sig'))) fail('auth reply sig does not verify over the load bytes');
  const inner = readMsgpack(load);
  const keys = keysOf(inner);
  if (textField(inner, 'nonce') !== nonce) fail('auth reply nonce differs from the request');
  if (keys.join() === 'ret,nonce') {
    const ret = field(inner, 'ret');
    if (ret === true) return { kind: 'pending' };
    if (ret === false) return { kind: 'rejected' };
    fail('auth reply ret must be true or false');
  }
  const expected = keys.includes('token')
    ? 'enc,pub_key,publish_port,token,aes,session,sig,nonce'
    : 'enc,pub_key,publish_port,aes,session,sig,nonce';
  if (keys.join() !== expected) fail(`accepted auth reply keys must be ${expected}, got ${keys.join()}`);
  if (textField(inner, 'enc') !== 'pub') fail("accepted auth reply enc must be 'pub'");
  if (textField(inner, 'pub_key') !== masterPub.trim()) fail('pub_key must be the master public key, stripped');
  const port = field(inner, 'publish_port');
  if (typeof port !== 'number') fail('publish_port must be an integer');
  const aes = oaepOpen(minionPriv, rawField(inner, 'aes')).toString('latin1');
  const session = oaepOpen(minionPriv, rawField(inner, 'session')).toString('latin1');
  const digest = createHash('sha256').update(aes).digest('hex');
  if (x931OpenIndependent(masterPub, rawField(inner, 'sig')).toString('latin1') !== digest) {
    fail('accepted auth reply sig is not X9.31 of sha256 hex of the aes key');
  }
  const out: { kind: 'accepted'; aes: string; session: string; token?: string; port: number } = { kind: 'accepted', aes, session, port };
  if (keys.includes('token')) out.token = oaepOpen(minionPriv, rawField(inner, 'token')).toString('latin1');
  return out;
}

/** A publication: one map {enc: aes, load, sig_algo, sig}; sig over the encrypted load bytes. */
export function checkPublication(frame: Buffer, aesKey: string, masterPub: string): Value {
  const outer = readMsgpack(frame);
  if (keysOf(outer).join() !== 'enc,load,sig_algo,sig') fail('publication keys must be enc, load, sig_algo, sig');
  if (textField(outer, 'enc') !== 'aes') fail("publication enc must be 'aes'");
  if (textField(outer, 'sig_algo') !== 'PKCS1v15-SHA1') fail('publication sig_algo must be PKCS1v15-SHA1');
  const load = rawField(outer, 'load');
  if (!pkcs1Valid(masterPub, load, rawField(outer, 'sig'))) fail('publication sig does not verify');
  return readMsgpack(crypticleOpen(aesKey, load));
}

/** An aes reply: a raw string = Crypticle(session) of pickle:: + nonce + msgpack(result). */
export function checkAesReply(frame: Buffer, sessionKey: string, nonce: string): Value {
  const outer = readMsgpack(frame);
  if (!Buffer.isBuffer(outer)) fail('aes reply must be a raw string');
  const body = crypticleOpen(sessionKey, outer);
  if (body.subarray(0, 32).toString('latin1') !== nonce) fail('aes reply does not start with the request nonce');
  return readMsgpack(body.subarray(32));
}

/** An aes request: {enc, load, version: 3, id, enc_algo, sig_algo}; load has nonce, ts, tok (X9.31 of salt), id. */
export function checkAesRequest(frame: Buffer, sessionKey: string, minionPub: string): Value {
  const outer = readMsgpack(frame);
  if (keysOf(outer).join() !== 'enc,load,version,id,enc_algo,sig_algo') fail('aes request keys out of order or missing');
  if (textField(outer, 'enc') !== 'aes') fail("aes request enc must be 'aes'");
  if (field(outer, 'version') !== 3) fail('aes request version must be 3');
  if (textField(outer, 'enc_algo') !== 'OAEP-SHA1' || textField(outer, 'sig_algo') !== 'PKCS1v15-SHA1') fail('bad algorithms');
  const load = readMsgpack(crypticleOpen(sessionKey, rawField(outer, 'load')));
  if (textField(load, 'id') !== textField(outer, 'id')) fail('load id differs from the envelope id');
  nonceOk(textField(load, 'nonce'));
  const ts = field(load, 'ts');
  if (typeof ts !== 'number' || !Number.isInteger(ts)) fail('ts must be integer seconds');
  if (x931OpenIndependent(minionPub, rawField(load, 'tok')).toString('latin1') !== 'salt') fail('tok is not X9.31 of "salt"');
  return load;
}

/** A send_private reply: {key: OAEP(K), pillar: Crypticle(K) of pickle:: + msgpack({data, sig})}. */
export function checkSendPrivateReply(frame: Buffer, minionPriv: string, masterPub: string, nonce: string): Value {
  const outer = readMsgpack(frame);
  if (keysOf(outer).join() !== 'key,pillar') fail('send_private keys must be key, pillar');
  const key = rawField(outer, 'key');
  const k = oaepOpen(minionPriv, key).toString('latin1');
  const signed = readMsgpack(crypticleOpen(k, rawField(outer, 'pillar')));
  const data = rawField(signed, 'data');
  if (!pkcs1Valid(masterPub, data, rawField(signed, 'sig'))) fail('send_private sig does not verify over data');
  const inner = readMsgpack(data);
  if (keysOf(inner).join() !== 'key,pillar,nonce') fail('send_private data keys must be key, pillar, nonce');
  if (!rawField(inner, 'key').equals(key)) fail('send_private data.key differs from the sent key');
  if (textField(inner, 'nonce') !== nonce) fail('send_private nonce differs');
  return field(inner, 'pillar');
}
