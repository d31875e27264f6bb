/**
 * Auth storms, with many minions in one process over the in-memory transport (no sockets): a real
 * Master (AuthService, Sessions, KeyStore on disk, JobService) and real Minion job loops.
 *
 * 1. Cold storm: every minion (new keys, auto_accept) signs in at the same moment; all get in,
 *    none gives up, and a job to '*' gets every return.
 * 2. Re-sign-in storm: `salt-key -d` of one minion rotates the publish key; the next job is
 *    unreadable to every other minion, so all of them sign in again at once, and that job still
 *    completes with every expected return.
 *
 * The minions share a few key pairs (the master still does every sign-in's RSA work), as the
 * scale benchmark's simulator does. One cluster serves both tests, in order.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalClient } from '../../../src/core/client/local-client';
import { loadMasterConfig, loadMinionConfig } from '../../../src/core/config';
import { createLogging } from '../../../src/core/log';
import { Master } from '../../../src/core/master/master';
import { Minion, type JobExecutor } from '../../../src/core/minion/job-loop';
import { MemoryTransport } from '../../../src/core/transport/memory';
import { minionSettings } from '../../../src/cli/minion-runtime';

const MINIONS = 200;
const KEY_PAIRS = 4;

const logging = createLogging({ level: 'critical', console: false });
const log = logging.getLogger('test');

let root: string;
let master: Master;
let client: LocalClient;
const minions: Minion[] = [];
const ids = Array.from({ length: MINIONS }, (_, i) => `storm-${String(i).padStart(3, '0')}`);
let stormError: unknown;

async function ping(expected: number): Promise<{ jid: string; minions: string[]; returned: Set<string> }> {
  const pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
  expect(pub.minions).toHaveLength(expected);
  const returned = new Set<string>();
  // Every expected return arrives well before this bound; returns() ends as soon as all are in.
  for await (const ret of client.returns(pub, 60_000)) {
    expect(ret.return).toBe(true);
    returned.add(ret.id);
  }
  return { jid: pub.jid, minions: pub.minions, returned };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'brine-auth-storm-'));
  const net = new MemoryTransport();
  const etc = join(root, 'etc', 'master');
  mkdirSync(etc, { recursive: true });
  writeFileSync(
    join(etc, 'master'),
    stringify({ root_dir: join(root, 'master'), interface: '127.0.0.1', auto_accept: true, keysize: 1024 }),
  );
  const { config: masterConfig } = loadMasterConfig(etc);
  master = new Master(masterConfig, log, { transport: net });
  await master.start();

  const pairs = Array.from({ length: KEY_PAIRS }, () =>
    generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    }),
  );
  const executor: JobExecutor = { run: async () => ({ return: true, retcode: 0, success: true }) };
  ids.forEach((id, i) => {
    const dir = join(root, 'minions', id);
    const pki = join(dir, 'pki');
    mkdirSync(pki, { recursive: true, mode: 0o700 });
    writeFileSync(join(pki, 'minion.pem'), pairs[i % KEY_PAIRS].privateKey, { mode: 0o600 });
    writeFileSync(join(pki, 'minion.pub'), pairs[i % KEY_PAIRS].publicKey);
    // auth_timeout/auth_tries are Salt's defaults: a storm must not need them raised.
    writeFileSync(join(dir, 'minion'), stringify({ root_dir: dir, id, master: '127.0.0.1', keysize: 1024, pki_dir: pki }));
    const { config } = loadMinionConfig(dir);
    minions.push(new Minion(minionSettings(config), executor, { all: () => ({ id }) }, log, { transport: net }));
  });
  // The cold storm: all at once.
  const started = await Promise.allSettled(minions.map((m) => m.start()));
  stormError = started.find((r) => r.status === 'rejected');
  client = await LocalClient.connect(masterConfig, { transport: net });
}, 120_000);

afterAll(async () => {
  client?.close();
  await Promise.allSettled(minions.map((m) => m.stop()));
  await master?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe(`an auth storm of ${MINIONS} minions on one master`, () => {
  it('cold: every minion signs in at once (new keys, auto_accept), none gives up, and a job gets every return', async () => {
    expect(stormError).toBeUndefined();
    expect(master.keys.list('accepted')).toHaveLength(MINIONS);
    const { returned } = await ping(MINIONS);
    expect(returned.size).toBe(MINIONS);
  });

  it('after salt-key -d of one minion the publish key rotates: all others sign in again and the job that found the new key completes', async () => {
    const gone = ids[0];
    const keyBefore = (master as unknown as { publishKey: { keyString: string } }).publishKey.keyString;
    expect(master.keys.delete([gone])).toEqual([{ id: gone, state: 'accepted' }]);
    expect(master.keys.list('accepted')).not.toContain(gone);
    // The publish reconciles the keys first: the deleted minion is not expected, the key rotates,
    // and the publication is sealed with the new key that no other minion holds yet.
    const { minions: expected, returned } = await ping(MINIONS - 1);
    expect((master as unknown as { publishKey: { keyString: string } }).publishKey.keyString).not.toBe(keyBefore);
    expect(expected).not.toContain(gone);
    expect(returned.size).toBe(MINIONS - 1);
    expect([...returned].sort()).toEqual(ids.slice(1));
    // Everyone holds the new key; the deleted minion, which read that job neither, signed in
    // again and auto_accept took its key back (as in Salt): the next job reaches all of them.
    const again = await ping(MINIONS);
    expect(again.returned.size).toBe(MINIONS);
  });
});
