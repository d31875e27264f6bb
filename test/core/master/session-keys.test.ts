/**
 * Session keys across sign-ins, on a real master (in process, real sockets, real RSA pool).
 * The cause of "Bad request: message HMAC does not match": the master made a new session key at
 * every `_auth`, so when a minion signed in again (its publish key rotated, or another of its
 * channels signed in: each Salt job process, salt-call) the requests it still had in flight were
 * sealed with a key the master had dropped. Salt keeps one key per minion id for publish_session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildAesRequest, buildAuthRequest, makeTok, openAesReply, openAuthReply } from '../../../src/core/channel';
import { loadMasterConfig } from '../../../src/core/config/load';
import { createLogging, type Logging } from '../../../src/core/log';
import { Master, type MasterSettings } from '../../../src/core/master/master';
import { Sessions } from '../../../src/core/master/sessions';
import { RequestClient } from '../../../src/core/transport/zeromq';
import { freePort } from '../../support/ports';

function minionKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** One request channel of a minion: its own socket, signing in on its own (as a Salt job process does). */
class Channel {
  readonly client: RequestClient;
  constructor(
    retPort: number,
    readonly id: string,
    readonly keys: ReturnType<typeof minionKeys>,
  ) {
    this.client = new RequestClient(`tcp://127.0.0.1:${retPort}`);
  }

  async signIn(): Promise<{ aesKey: string; sessionKey: string }> {
    const { bytes, nonce } = buildAuthRequest({ id: this.id, publicPem: this.keys.publicPem });
    const reply = openAuthReply(await this.client.request(bytes, 10_000), null, this.keys.privateKey, nonce);
    if (reply.kind !== 'accepted') throw new Error(`${this.id}: sign-in answered ${reply.kind}`);
    return { aesKey: reply.aesKey, sessionKey: reply.sessionKey };
  }

  seal(sessionKey: string, n: number) {
    return buildAesRequest({
      id: this.id,
      sessionKey,
      tok: makeTok(this.keys.privateKey),
      load: { cmd: '_minion_event', id: this.id, tag: `load/${n}`, data: { n }, pretag: null },
    });
  }
}

describe('session keys across sign-ins (real master)', () => {
  let root: string;
  let master: Master;
  let logging: Logging;
  let log = '';
  let onLog = () => {};
  /** Resolves once `text` has been logged `times` times (the logger writes synchronously). */
  const logLine = (text: string, times: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${times}x "${text}" in:\n${log}`)), 20_000);
      onLog = () => {
        if (log.split(text).length - 1 < times) return;
        clearTimeout(timer);
        resolve();
      };
      onLog();
    });
  let retPort: number;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'brine-session-'));
    const confDir = join(root, 'etc');
    mkdirSync(confDir, { recursive: true });
    retPort = await freePort();
    writeFileSync(
      join(confDir, 'master'),
      stringify({
        root_dir: root,
        interface: '127.0.0.1',
        publish_port: await freePort(),
        ret_port: retPort,
        auto_accept: true,
        keysize: 1024,
        worker_threads: 2,
      }),
    );
    logging = createLogging({ level: 'info', console: true, stderr: { write: (t: string) => ((log += t), onLog()) } });
    master = new Master(loadMasterConfig(confDir).config, logging.getLogger('salt.master'));
    await master.start();
  });

  afterAll(async () => {
    await master?.stop();
    await logging?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps every request answered while the publish key rotates and the minion signs in again under load', async () => {
    const keys = minionKeys();
    const main = new Channel(retPort, 'busy', keys);
    const jobProcess = new Channel(retPort, 'busy', keys);
    const other = new Channel(retPort, 'other', minionKeys());
    try {
      const first = await main.signIn();
      await other.signIn();
      const rotations: string[] = [first.aesKey];
      let n = 0;
      const answered: Array<Promise<unknown>> = [];
      // Five rounds: 40 requests sealed with the key main holds go out, the publish key rotates
      // (a deleted minion), and a second channel of the same minion signs in again meanwhile.
      for (let round = 0; round < 5; round++) {
        const batch = Array.from({ length: 40 }, () => main.seal(first.sessionKey, n++));
        const half = batch.length / 2;
        for (const r of batch.slice(0, half))
          answered.push(
            main.client.request(r.bytes, 10_000).then(
              (b) => openAesReply(b, first.sessionKey, r.nonce),
              (err: Error) => err,
            ),
          );
        // salt-key -d other: the master sees it through a directory watch and rotates.
        master.keys.delete(['other']);
        await logLine('Rotating AES key', round + 1);
        const again = await jobProcess.signIn();
        expect(again.aesKey).not.toBe(rotations[rotations.length - 1]);
        await other.signIn(); // auto_accept takes it back, for the next round
        rotations.push(again.aesKey);
        expect(again.sessionKey).toBe(first.sessionKey);
        for (const r of batch.slice(half))
          answered.push(
            main.client.request(r.bytes, 10_000).then(
              (b) => openAesReply(b, first.sessionKey, r.nonce),
              (err: Error) => err,
            ),
          );
      }
      const replies = await Promise.all(answered);
      expect(replies).toHaveLength(200);
      expect(replies.every((r) => r === null)).toBe(true);
      expect(new Set(rotations).size).toBe(6);
      expect(log).not.toMatch(/HMAC|Bad request/);
    } finally {
      for (const c of [main, jobProcess, other]) c.client.close();
    }
  }, 60_000);
});

describe('Sessions', () => {
  const key = () => generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it('hands out the same key at every sign-in until publish_session has passed, then a new one', () => {
    let now = 1_000_000;
    const sessions = new Sessions({ publishSession: 60, graceMs: 5_000, now: () => now });
    const pub = key();
    const a = sessions.open('m1', pub);
    now += 59_000;
    expect(sessions.open('m1', pub).crypticle.keyString()).toBe(a.crypticle.keyString());
    now += 1_000;
    const b = sessions.open('m1', pub);
    expect(b.crypticle.keyString()).not.toBe(a.crypticle.keyString());
    // The replaced key still opens requests that were in flight, for the grace period only.
    expect(sessions.previousKey(b)).toBe(a.crypticle);
    now += 5_000;
    expect(sessions.previousKey(b)).toBeUndefined();
  });

  it('keeps the keys in a folder, so a restarted master reads requests sealed before (while the key is accepted and fresh)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'brine-sessions-'));
    try {
      const pub = key();
      let accepted: string | undefined = pub;
      let now = Date.now();
      const opts = { dir, acceptedPem: (id: string) => (id === 'm1' ? accepted : undefined), publishSession: 3600, now: () => now };
      const a = new Sessions(opts).open('m1', pub);
      const restarted = new Sessions(opts);
      expect(restarted.connected('m1')).toBe(false); // not since this restart
      expect(restarted.get('m1')?.crypticle.keyString()).toBe(a.crypticle.keyString());
      expect(restarted.connected('m1')).toBe(true); // it sent a request
      expect(restarted.open('m1', pub).crypticle.keyString()).toBe(a.crypticle.keyString());
      expect(new Sessions(opts).get('m2')).toBeUndefined();
      expect(new Sessions(opts).get('../m1')).toBeUndefined();
      now += 3600_000;
      expect(new Sessions(opts).get('m1')).toBeUndefined();
      now -= 3600_000;
      accepted = undefined; // salt-key -d while the master was down
      expect(new Sessions(opts).get('m1')).toBeUndefined();
      accepted = pub;
      restarted.end('m1');
      expect(new Sessions(opts).get('m1')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the session for the same key in other line endings, as Salt compares keys (clean_key)', () => {
    const sessions = new Sessions();
    const pub = key();
    const a = sessions.open('m1', pub);
    expect(sessions.open('m1', `${pub.trim().split('\n').join('\r\n')}\r\n`).crypticle.keyString()).toBe(a.crypticle.keyString());
  });

  it('starts afresh for another public key and after the session ended', () => {
    const sessions = new Sessions();
    const pub = key();
    const a = sessions.open('m1', pub);
    const replaced = sessions.open('m1', key());
    expect(replaced.crypticle.keyString()).not.toBe(a.crypticle.keyString());
    expect(sessions.previousKey(replaced)).toBeUndefined();
    sessions.end('m1');
    expect(sessions.get('m1')).toBeUndefined();
    expect(sessions.open('m1', pub).crypticle.keyString()).not.toBe(replaced.crypticle.keyString());
  });
});
