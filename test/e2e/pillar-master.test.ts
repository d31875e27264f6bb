/**
 * Pillar from a brine master: each minion gets the pillar compiled for it alone (its id, its
 * grains), the master caches it for -I targeting, a changed pillar file is seen on
 * saltutil.refresh_pillar without restarting the master, and a render error is `_errors` with
 * exit 0. Privacy: an accepted minion that listens to every publication on the real publish port
 * never sees a pillar value, and a `_pillar` request claiming another minion's id gets nothing of
 * that minion's pillar.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zmq from 'zeromq';
import {
  buildAesRequest,
  buildAuthRequest,
  makeTok,
  openAuthReply,
  openPublication,
  openSendPrivateReply,
  publicationPayload,
} from '../../src/core/channel';
import { generateKeyPair } from '../../src/core/crypto/rsa';
import { decode } from '../../src/core/protocol/msgpack';
import { Cluster } from '../support/cluster';
import { rawExchange } from '../support/master-harness';

let cluster: Cluster;
let pillarRoot: string;

function write(rel: string, text: string): void {
  const path = join(pillarRoot, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  cluster = await Cluster.create();
  pillarRoot = join(cluster.root, 'pillar');
  write('top.sls', "base:\n  '*':\n    - common\n  'web1':\n    - web\n  'role:db':\n    - match: grain\n    - db\n");
  // salt[...] runs the master's own functions (Salt's master compiles pillar with its minion modules).
  write('common.sls', "site: {{ salt['test.echo'](grains['id']) }}.example\n");
  write('web.sls', 'role: web\nsecret: web-only-secret\n');
  write('db.sls', 'role: db\nsecret: db-only-secret\n');
  const masterConf = join(cluster.masterDir, 'master');
  writeFileSync(masterConf, `${readFileSync(masterConf, 'utf8')}pillar_roots:\n  base:\n    - ${pillarRoot}\n`);
  await cluster.startMaster();
  await cluster.startAccepted([{ id: 'web1' }, { id: 'db1', grains: { role: 'db' } }]);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The returns, merged: the json outputter prints one document per minion as it answers. */
async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cluster.salt(...args, '--out', 'json');
  expect(res.code, res.stderr).toBe(0);
  const docs = res.stdout.trim().split(/\n(?=\{)/);
  return Object.assign({}, ...docs.map((d) => JSON.parse(d)));
}

describe('pillar from the master', () => {
  it("gives each minion its own pillar and never another's", async () => {
    expect(await json('web1', 'pillar.items')).toEqual({ web1: { site: 'web1.example', role: 'web', secret: 'web-only-secret' } });
    expect(await json('db1', 'pillar.items')).toEqual({ db1: { site: 'db1.example', role: 'db', secret: 'db-only-secret' } });
    const both = await json('*', 'pillar.get', 'secret');
    expect(both).toEqual({ web1: 'web-only-secret', db1: 'db-only-secret' });
  }, 60_000);

  it('targets with -I and I@ from the pillar the master compiled', async () => {
    expect(Object.keys(await json('-I', 'role:web', 'test.ping'))).toEqual(['web1']);
    expect(Object.keys(await json('-C', 'I@role:db and db*', 'test.ping'))).toEqual(['db1']);
  }, 60_000);

  it('sees a changed pillar file on saltutil.refresh_pillar, without a master restart', async () => {
    write('web.sls', 'role: web\nsecret: rotated-secret\n');
    expect(await json('web1', 'saltutil.refresh_pillar')).toEqual({ web1: true });
    expect(await json('web1', 'pillar.get', 'secret')).toEqual({ web1: 'rotated-secret' });
    expect(await json('web1', 'pillar.raw', 'key=secret')).toEqual({ web1: 'rotated-secret' });
  }, 60_000);

  it('merges a command-line pillar override over the compiled pillar', async () => {
    expect(await json('web1', 'pillar.items', 'pillar={"secret": "override", "extra": 1}')).toEqual({
      web1: { site: 'web1.example', role: 'web', secret: 'override', extra: 1 },
    });
  }, 60_000);

  it('answers a broken pillar file with _errors, exit 0, and logs the cause on the master', async () => {
    write('common.sls', 'site: {{ undefined_thing.x }}\n');
    const res = await cluster.salt('db1', 'pillar.items', '--out', 'json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      db1: { role: 'db', secret: 'db-only-secret', _errors: ["Rendering SLS 'common' failed. Please see master log for details."] },
    });
    await cluster.master!.waitFor("Rendering SLS 'common' failed, render error:");
    // salt[...] runs the master's own functions (Salt's master compiles pillar with its minion modules).
    write('common.sls', "site: {{ salt['test.echo'](grains['id']) }}.example\n");
  }, 60_000);
});

/** An accepted minion made of channel calls that decrypts every publication it receives. */
class Eavesdropper {
  readonly keys = generateKeyPair(1024);
  readonly raw: Buffer[] = [];
  readonly jobs: Record<string, unknown>[] = [];
  private readonly sub = new zmq.Subscriber({ linger: 0 });
  private aesKey = '';
  private sessionKey = '';
  private masterPub = '';
  private waiters: (() => void)[] = [];

  constructor(readonly id: string) {}

  private get address(): string {
    return `tcp://127.0.0.1:${cluster.retPort}`;
  }

  async signIn(): Promise<string> {
    const { bytes, nonce } = buildAuthRequest({ id: this.id, publicPem: this.keys.publicPem });
    const reply = openAuthReply(await rawExchange(this.address, bytes), null, this.keys.privatePem, nonce);
    if (reply.kind === 'accepted')
      Object.assign(this, { aesKey: reply.aesKey, sessionKey: reply.sessionKey, masterPub: reply.masterPublicPem });
    return reply.kind;
  }

  listen(): void {
    this.sub.connect(`tcp://127.0.0.1:${cluster.publishPort}`);
    this.sub.subscribe();
    void (async () => {
      for await (const frames of this.sub) {
        const payload = publicationPayload(frames as Buffer[]);
        this.raw.push(payload);
        this.jobs.push(openPublication(payload, this.aesKey, this.masterPub) as unknown as Record<string, unknown>);
        for (const w of this.waiters.splice(0)) w();
      }
    })().catch(() => {});
  }

  /** Resolves once a publication of `fun` has arrived (no timer: the test's timeout bounds it). */
  async seen(fun: string): Promise<void> {
    while (!this.jobs.some((j) => j.fun === fun)) await new Promise<void>((res) => this.waiters.push(res));
  }

  /** A `_pillar` request whose load claims `claimedId`, sent in this minion's own session. */
  async pillarAs(claimedId: string): Promise<unknown> {
    const { bytes, nonce } = buildAesRequest({
      id: this.id,
      sessionKey: this.sessionKey,
      tok: makeTok(this.keys.privatePem),
      load: { cmd: '_pillar', id: claimedId, grains: { id: claimedId }, saltenv: 'base', pillarenv: null, ver: '2' },
    });
    const reply = await rawExchange(this.address, bytes);
    const plain = decode(reply);
    if (plain === 'bad load') return plain;
    return openSendPrivateReply(reply, this.keys.privatePem, this.masterPub, nonce);
  }

  close(): void {
    this.sub.close();
  }
}

describe('pillar privacy on the real ports', () => {
  const spy = new Eavesdropper('spy');
  const secrets = ['web-only-secret', 'rotated-secret', 'db-only-secret'];

  beforeAll(async () => {
    expect(await spy.signIn()).toBe('pending');
    const accepted = await cluster.saltKey('-a', 'spy', '-y');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(await spy.signIn()).toBe('accepted');
    spy.listen();
    // ZeroMQ's subscription is asynchronous: publish until the spy receives one.
    while (!spy.jobs.some((j) => j.fun === 'test.ping')) {
      await cluster.salt('-L', 'web1,db1', 'test.ping');
    }
  }, 60_000);

  afterAll(() => spy.close());

  it('never carries pillar on the publish port', async () => {
    expect(await json('web1', 'pillar.items')).toHaveProperty('web1.secret');
    expect(await json('-L', 'web1,db1', 'saltutil.refresh_pillar')).toEqual({ web1: true, db1: true });
    expect(await json('-L', 'web1,db1', 'pillar.get', 'secret')).toEqual({ web1: 'rotated-secret', db1: 'db-only-secret' });
    await spy.seen('pillar.items');
    await spy.seen('saltutil.refresh_pillar');
    await spy.seen('pillar.get');
    for (const secret of secrets) {
      expect(spy.raw.some((b) => b.includes(secret))).toBe(false);
      expect(JSON.stringify(spy.jobs, (_k, v) => (Buffer.isBuffer(v) ? v.toString('latin1') : v))).not.toContain(secret);
    }
  }, 60_000);

  it("gives a minion that claims another's id nothing of that minion's pillar", async () => {
    const answer = await spy.pillarAs('web1');
    // Either refused, or compiled for the session's own minion (spy), sealed to spy's key.
    if (answer !== 'bad load') expect(answer).toEqual({ site: 'spy.example' });
    for (const secret of secrets) expect(JSON.stringify(answer)).not.toContain(secret);
  }, 60_000);
});
