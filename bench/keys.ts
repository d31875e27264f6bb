/**
 * Minion RSA keys for the scale benchmark. Generating a thousand 2048-bit keys takes a minute on a
 * small machine, so they are generated once (asynchronously, on libuv's thread pool, a few at a
 * time) into <tmpdir>/brine-bench-keys/<bits>/<i>.pem and reused by later runs.
 */
import { generateKeyPair } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchError } from './bench-error';
import { privateKeyFromPem, publicPemOf } from '../src/core/crypto/rsa';

export interface KeyCacheResult {
  dir: string;
  /** Keys that had to be generated in this run. */
  generated: number;
  /** Keys found in the cache. */
  reused: number;
  ms: number;
}

export function keyCacheDir(bits: number): string {
  return join(tmpdir(), 'brine-bench-keys', String(bits));
}

function keyPath(dir: string, index: number): string {
  return join(dir, `${index}.pem`);
}

function generatePem(bits: number): Promise<string> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      {
        modulusLength: bits,
        publicExponent: 0x10001,
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      },
      (err, _pub, priv) => (err ? reject(err) : resolve(priv)),
    );
  });
}

/** Makes sure keys 0..count-1 exist in the cache; generates the missing ones in parallel. */
export async function ensureKeyCache(count: number, bits: number): Promise<KeyCacheResult> {
  const started = performance.now();
  const dir = keyCacheDir(bits);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const missing: number[] = [];
  for (let i = 0; i < count; i++) if (!existsSync(keyPath(dir, i))) missing.push(i);
  // One more than the cores keeps the thread pool busy without flooding it.
  const parallel = Math.max(2, cpus().length + 1);
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const index = missing[next++];
      const pem = await generatePem(bits);
      // Written under a temporary name first so an interrupted run never leaves half a key.
      const tmp = `${keyPath(dir, index)}.${process.pid}.tmp`;
      writeFileSync(tmp, pem, { mode: 0o600 });
      renameSync(tmp, keyPath(dir, index));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { dir, generated: missing.length, reused: count - missing.length, ms: performance.now() - started };
}

/**
 * Writes cached key `index` into a minion's pki_dir as minion.pem / minion.pub, so that
 * ensureMinionKeys finds them and does not generate new ones.
 */
export function installMinionKey(cacheDir: string, index: number, pkiDir: string): void {
  const source = keyPath(cacheDir, index);
  let pem: string;
  try {
    pem = readFileSync(source, 'utf8');
  } catch (err) {
    throw new BenchError('BENCH_KEY_MISSING', `bench: cached key ${source} cannot be read`, {
      cause: err,
      hint: 'call ensureKeyCache first, or delete the cache folder to regenerate it',
    });
  }
  mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(pkiDir, 'minion.pem'), pem, { mode: 0o600 });
  chmodSync(join(pkiDir, 'minion.pem'), 0o600);
  writeFileSync(join(pkiDir, 'minion.pub'), publicPemOf(privateKeyFromPem(pem)).trim() + '\n', { mode: 0o644 });
}
