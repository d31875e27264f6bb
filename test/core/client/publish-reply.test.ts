import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicationFromReply } from '../../../src/core/client/local-client';
import { encode } from '../../../src/core/protocol/msgpack';
import { parsePublishReply } from '../../../src/core/protocol/loads';
import { codeOf } from '../../support/errors';

// The replies a real Salt 3007 master gave the `salt` CLI's publish requests.
const WIRE = path.resolve(__dirname, '../../..', '../shared/salt-wire');
const replies = (
  JSON.parse(readFileSync(path.join(WIRE, 'cli-publish.json'), 'utf8')) as {
    cases: { label: string; reply: { zmq_frames_hex: string[] } }[];
  }
).cases.map((c) => ({ label: c.label, bytes: Buffer.from(c.reply.zmq_frames_hex[c.reply.zmq_frames_hex.length - 1], 'hex') }));

describe("LocalClient's reading of the publish reply", () => {
  it("reads the jid and minions of Salt's replies", () => {
    const ping = replies.find((r) => r.label === 'cli_publish_3_test.ping')!;
    expect(publicationFromReply(ping.bytes)).toEqual({ jid: '20261202131548221629', minions: ['web1', 'db1'], notConnected: [] });
  });

  it("answers NO_MINIONS for Salt's no-match reply, whatever its error text says", () => {
    const none = replies.find((r) => r.label === 'cli_publish_10_test.ping')!;
    expect(codeOf(() => publicationFromReply(none.bytes))).toBe('NO_MINIONS');
    const reworded = encode({ enc: 'clear', load: { jid: null, minions: [], error: 'nothing here' } });
    expect(codeOf(() => publicationFromReply(reworded))).toBe('NO_MINIONS');
  });

  it('reads brine’s not_connected and refuses a malformed one', () => {
    const load = { jid: '20261202131548221629', minions: ['a', 'b'], missing: [], not_connected: ['b'] };
    expect(publicationFromReply(encode({ enc: 'clear', load })).notConnected).toEqual(['b']);
    expect(codeOf(() => publicationFromReply(encode({ enc: 'clear', load: { ...load, not_connected: 'b' } })))).toBe('BAD_REPLY');
  });

  it('tells a refusal from a broken reply', () => {
    expect(codeOf(() => publicationFromReply(encode('bad load')))).toBe('PUBLISH_REFUSED');
    const noJid = encode({ enc: 'clear', load: { error: 'Master failed to assign jid' } });
    expect(codeOf(() => publicationFromReply(noJid))).toBe('PUBLISH_REFUSED');
    const auth = encode({ enc: 'clear', load: { error: { name: 'AuthorizationError', message: 'Authorization error occurred.' } } });
    expect(() => publicationFromReply(auth)).toThrow('AuthorizationError: Authorization error occurred.');
    // Salt's master sends an authentication failure bare, with no clear envelope around it.
    const bare = encode({ error: { name: 'AuthenticationError', message: 'Authentication error occurred.' } });
    expect(codeOf(() => publicationFromReply(bare))).toBe('PUBLISH_REFUSED');
    expect(() => publicationFromReply(bare)).toThrow('AuthenticationError: Authentication error occurred.');
    expect(codeOf(() => publicationFromReply(encode({ error: 42 })))).toBe('BAD_REPLY');
    expect(codeOf(() => publicationFromReply(encode({ enc: 'aes', load: {} })))).toBe('BAD_REPLY');
    expect(codeOf(() => publicationFromReply(encode({ enc: 'clear', load: { jid: 'x', minions: [], missing: [] } })))).toBe('BAD_REPLY');
    expect(codeOf(() => publicationFromReply(Buffer.from([0xc1])))).toBe('BAD_REPLY');
  });

  it('parsePublishReply reads a load with only an error as a refusal', () => {
    expect(parsePublishReply({ error: 'Master failed to assign jid' })).toEqual({ error: 'Master failed to assign jid' });
  });
});
