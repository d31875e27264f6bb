/**
 * Micro-benchmarks of the hot paths of the wire protocol: msgpack, Crypticle, RSA. Keys are the
 * shared salt-wire vector keys (<repo>/../shared/salt-wire/keys). bench/run.ts prints the table.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Crypticle } from '../src/core/crypto/crypticle';
import {
  oaepDecrypt,
  oaepEncrypt,
  privateKeyFromPem,
  publicKeyFromPem,
  signPkcs1v15Sha1,
  verifyPkcs1v15Sha1,
  x931Sign,
} from '../src/core/crypto/rsa';
import { decode, encode } from '../src/core/protocol/msgpack';
import { ReplayGuard } from '../src/core/master/replay-guard';

export interface MicroResult {
  name: string;
  opsPerSec: number;
}

/** The repository root: the nearest directory above this file holding package.json (works from dist/ too). */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`bench: no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

function vectorKey(name: string): string {
  const file = path.join(repoRoot(), '..', 'shared', 'salt-wire', 'keys', name);
  if (!existsSync(file)) throw new Error(`bench: vector key ${file} not found (the shared salt-wire vectors sit beside the repo)`);
  return readFileSync(file, 'utf8');
}

/** Run `fn` repeatedly for about `ms` milliseconds (after a warm-up) and return calls per second. */
function measure(fn: () => unknown, ms = 700, warmupMs = 150): number {
  const run = (budgetMs: number): { calls: number; ns: bigint } => {
    const budget = BigInt(budgetMs) * 1_000_000n;
    const start = process.hrtime.bigint();
    let calls = 0;
    let batch = 1;
    let elapsed = 0n;
    while (elapsed < budget) {
      for (let i = 0; i < batch; i++) fn();
      calls += batch;
      elapsed = process.hrtime.bigint() - start;
      if (batch < 1024) batch *= 2;
    }
    return { calls, ns: elapsed };
  };
  run(warmupMs);
  const { calls, ns } = run(ms);
  return Math.round((calls * 1e9) / Number(ns));
}

export async function runMicroBench(): Promise<MicroResult[]> {
  const master = privateKeyFromPem(vectorKey('master.pem'));
  const masterPub = publicKeyFromPem(vectorKey('master.pub'));
  const minion = privateKeyFromPem(vectorKey('web1.pem'));
  const minionPub = publicKeyFromPem(vectorKey('web1.pub'));

  const publication = {
    enc: 'aes',
    load: Buffer.alloc(160, 0xa5),
    sig_algo: 'PKCS1v15-SHA1',
    sig: Buffer.alloc(256, 0x5a),
  };
  const job = {
    fun: 'test.arg',
    arg: [1, 'two', { __kwarg__: true, foo: 'bar' }],
    tgt: ['web1', 'db1'],
    jid: '20261202125622684790',
    ret: '',
    tgt_type: 'list',
    user: 'root',
    serial: 42,
  };
  const ret = {
    cmd: '_return',
    id: 'web1',
    success: true,
    return: { pid: 1234, retcode: 0, stdout: 'hi', stderr: '' },
    retcode: 0,
    jid: '20261202125622684790',
    fun: 'cmd.run',
    fun_args: ['echo hi'],
    user: 'root',
    _stamp: '2026-12-02T12:56:23.517087',
    nonce: 'af5d51a760cb40d79c08abd91e96abef',
    ts: 1796216183,
    tok: Buffer.alloc(256, 0x33),
  };
  const crypticle = new Crypticle(Crypticle.generateKeyString());
  const plain = Buffer.concat([Buffer.from('pickle::'), encode(job)]);
  const sealed = crypticle.encrypt(plain);
  const aesKey = Buffer.from(Crypticle.generateKeyString(), 'latin1');
  const oaep = oaepEncrypt(minionPub, aesKey);
  const signedData = encode(publication);
  const sig = signPkcs1v15Sha1(master, signedData);
  const digest = Buffer.from('d39c656d045afda9a24e94e6e603441e8688a802beddd3d5fb74581058e75326', 'latin1');

  const results: MicroResult[] = [];
  const add = (name: string, fn: () => unknown) => {
    results.push({ name, opsPerSec: measure(fn) });
  };
  // A publication's envelope and the job inside it (the load's ciphertext stands in as fixed bytes).
  add('msgpack encode+decode publication', () => {
    const frame = encode({ ...publication, load: encode(job) });
    return decode((decode(frame) as { load: Buffer }).load);
  });
  add('msgpack encode+decode _return', () => decode(encode(ret)));
  add('Crypticle encrypt (job, ~120 B)', () => crypticle.encrypt(plain));
  add('Crypticle decrypt (job, ~120 B)', () => crypticle.decrypt(sealed));
  add('RSA-OAEP encrypt (2048)', () => oaepEncrypt(minionPub, aesKey));
  add('RSA-OAEP decrypt (2048)', () => oaepDecrypt(minion, oaep));
  add('X9.31 sign (2048)', () => x931Sign(master, digest));
  add('PKCS#1 v1.5 verify (2048)', () => verifyPkcs1v15Sha1(masterPub, signedData, sig));
  // A fleet's pace (2,500 aes requests a second), run past both request_server_ttl and the cap on
  // remembered nonces first: the steady state of a busy master.
  let clock = 1_796_216_183_000;
  let n = 0;
  const guard = new ReplayGuard(300, () => clock);
  const checkNonce = () => {
    clock += 0.4;
    return guard.check(`minion-${n % 10_000}`, `nonce-${n++}`, clock / 1000);
  };
  for (let i = 0; i < 800_000; i++) checkNonce();
  add('replay guard check (2,500 requests/s, steady state)', checkNonce);
  return results;
}
