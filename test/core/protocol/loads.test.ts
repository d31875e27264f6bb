import { describe, expect, it } from 'vitest';
import { decode } from '../../../src/core/protocol/msgpack';
import * as L from '../../../src/core/protocol/loads';
import { ProtocolError } from '../../../src/core/errors';
import { WireMessage, allMessages, fromJson, lastFrame } from './wire-vectors';

const PER_CMD: Record<string, (v: unknown) => unknown> = {
  _return: L.parseReturnLoad,
  _minion_event: L.parseMinionEventLoad,
  _pillar: L.parsePillarRequestLoad,
};

/** Parse one captured message with the validators its kind calls for; returns how many loads were checked. */
function parseCaptured(m: WireMessage): number {
  const payload = decode(lastFrame(m));
  const sameKeys = (parsed: object, raw: object) => expect(Object.keys(parsed), m.source).toEqual(Object.keys(raw));
  switch (true) {
    case m.kind === 'clear-request:_auth': {
      const env = L.parseRequestEnvelope(payload);
      expect(env.enc).toBe('clear');
      const auth = L.parseAuthRequest(env.load);
      sameKeys(auth, env.load);
      expect(auth.id).toBe(m.load.id);
      expect(auth.token === undefined).toBe(m.load.token === undefined);
      return 2;
    }
    case m.kind === 'auth-reply': {
      const env = L.parseAuthReplyEnvelope(payload);
      const inner = L.parseAuthReplyLoad(decode(env.load));
      expect(inner).toEqual(fromJson(m.load));
      sameKeys(inner, m.load);
      return 2;
    }
    case m.kind === 'clear-request:publish': {
      const env = L.parseRequestEnvelope(payload);
      const load = L.parsePublishRequestLoad(env.load);
      expect(load).toEqual(fromJson(m.load));
      return 2;
    }
    case m.kind === 'clear-reply': {
      const env = L.parseClearReplyEnvelope(payload);
      expect(L.parsePublishReply(env.load)).toEqual(fromJson(m.reply.load));
      return 2;
    }
    case m.kind.startsWith('aes-request:'): {
      const env = L.parseRequestEnvelope(payload);
      expect(env.enc).toBe('aes');
      if (env.enc !== 'aes') return 0;
      expect(env.id).toBe(m.outer.id);
      const decrypted = fromJson(m.decrypted);
      const base = L.parseAesRequestLoad(decrypted);
      expect(base).toEqual(decrypted);
      const specific = PER_CMD[base.cmd](decrypted) as object;
      expect(specific).toEqual(decrypted);
      sameKeys(specific, decrypted as object);
      return 3;
    }
    case m.kind === 'aes-reply:_pillar': {
      const reply = L.parseSendPrivateReply(payload);
      expect(reply.key.length).toBe(256);
      return 1;
    }
    case m.kind === 'publish': {
      L.parsePublicationEnvelope(payload);
      const job = L.parseJobLoad(fromJson(m.decrypted));
      expect(job).toEqual(fromJson(m.decrypted));
      return 2;
    }
    default:
      // aes replies are opaque raw strings until decrypted (tested in the channel tests).
      expect(m.kind.startsWith('aes-reply:'), m.source).toBe(true);
      return 0;
  }
}

describe('load validators against every captured message', () => {
  it('accepts every capture and keeps fields and their order', () => {
    let loads = 0;
    const kinds = new Set<string>();
    for (const m of allMessages()) {
      loads += parseCaptured(m);
      kinds.add(m.kind);
    }
    expect(loads).toBeGreaterThan(500);
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'aes-request:_minion_event',
        'aes-request:_pillar',
        'aes-request:_return',
        'auth-reply',
        'clear-reply',
        'clear-request:_auth',
        'clear-request:publish',
        'publish',
      ]),
    );
  });
});

function bad(fn: () => unknown, field: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).code).toBe('BAD_LOAD');
    expect((e as Error).message).toContain(field);
    return;
  }
  throw new Error(`expected BAD_LOAD naming ${field}`);
}

describe('load validators reject malformed input', () => {
  const job = { fun: 'test.ping', arg: [], tgt: '*', jid: '20261202125622684790', ret: '', tgt_type: 'glob', user: 'root', serial: 1 };
  const ret = { cmd: '_return', id: 'web1', success: true, return: true, retcode: 0, jid: job.jid, fun: 'test.ping', fun_args: [] };

  it('names the missing or mistyped field', () => {
    bad(() => L.parseJobLoad({ ...job, fun: 3 }), "'fun'");
    bad(() => L.parseJobLoad({ ...job, jid: 'soon' }), "'jid'");
    bad(() => L.parseJobLoad({ ...job, arg: 'x' }), "'arg'");
    bad(() => L.parseJobLoad({ ...job, tgt: ['a', 1] }), "'tgt[1]'");
    bad(() => L.parseReturnLoad({ ...ret, retcode: '0' }), "'retcode'");
    bad(() => L.parseReturnLoad({ ...ret, cmd: '_pillar' }), "'cmd'");
    const { return: _dropped, ...noReturn } = ret;
    bad(() => L.parseReturnLoad(noReturn), "'return'");
    bad(() => L.parseAesRequestLoad({ cmd: '_return', id: 'web1', nonce: 'short', ts: 1, tok: Buffer.alloc(256) }), "'nonce'");
    bad(() => L.parseAesRequestLoad({ cmd: '_return', id: 'web1', nonce: 'a'.repeat(32), ts: 1.5, tok: Buffer.alloc(256) }), "'ts'");
    bad(() => L.parseAesRequestLoad({ cmd: '_return', id: 'web1', nonce: 'a'.repeat(32), ts: 1, tok: 7 }), "'tok'");
    bad(() => L.parseRequestEnvelope({ enc: 'rot13', load: {}, version: 3 }), "'enc'");
    bad(() => L.parseRequestEnvelope({ enc: 'aes', load: Buffer.alloc(64), version: 3, enc_algo: 'OAEP-SHA1', sig_algo: 'x' }), "'id'");
    bad(() => L.parseRequestEnvelope({ enc: 'clear', load: 'x', version: 3 }), "'load'");
    bad(() => L.parseAuthReplyLoad({ ret: 'maybe', nonce: 'a'.repeat(32) }), "'ret'");
    bad(() => L.parseAuthReplyLoad({ enc: 'pub', pub_key: 'k', publish_port: '4505' }), "'publish_port'");
    bad(() => L.parsePublishReply({ jid: null, minions: [] }), "'error'");
    bad(() => L.parsePublishRequestLoad({ cmd: 'publish', tgt: '*' }), "'fun'");
    bad(() => L.parsePillarRequestLoad({ cmd: '_pillar', id: 'web1', grains: [], ver: '2' }), "'grains'");
    bad(() => L.parseMinionEventLoad({ cmd: '_minion_event', id: 'web1', data: 1 }), "'tag'");
    bad(() => L.parseSendPrivateReply({ key: null, pillar: Buffer.alloc(1) }), "'key'");
    bad(() => L.parsePublicationEnvelope([1, 2]), 'expected a map');
    bad(() => L.parseJobLoad(new Map([[1, 2]])), 'expected a map');
  });

  it('keeps unknown fields for forward compatibility', () => {
    const parsed = L.parseJobLoad({ ...job, metadata: { a: 1 }, to: 5 });
    expect(parsed.metadata).toEqual({ a: 1 });
    expect(Object.keys(parsed)).toEqual([...Object.keys(job), 'metadata', 'to']);
  });

  it('types raw byte fields as Buffers even when they happened to be valid UTF-8', () => {
    const parsed = L.parseAesRequestLoad({ cmd: '_return', id: 'web1', nonce: 'a'.repeat(32), ts: 1, tok: 'salt' });
    expect(parsed.tok).toEqual(Buffer.from('salt'));
  });

  it('accepts a salt-call return (no success/user/_stamp) and a batched event', () => {
    expect(
      L.parseReturnLoad({ cmd: '_return', id: 'web1', jid: 'req', return: true, retcode: 0, fun: 'test.ping', fun_args: [] }).jid,
    ).toBe('req');
    expect(L.parseMinionEventLoad({ cmd: '_minion_event', id: 'web1', events: [{ tag: 'a', data: {} }] }).events).toHaveLength(1);
  });
});
