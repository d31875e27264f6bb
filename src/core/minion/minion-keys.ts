import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromPem, publicKeyFromPem, publicPemOf } from '../crypto/rsa';

export interface MinionKeys {
  privateKey: KeyObject;
  /** The public key as sent in `_auth`: the PEM without surrounding whitespace. */
  publicPem: string;
}

function writeAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** minion.pem (0600) and minion.pub in pki_dir, created on first start as Salt does. */
export function ensureMinionKeys(pkiDir: string, keysize: number): MinionKeys {
  mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  const pemPath = join(pkiDir, 'minion.pem');
  const pubPath = join(pkiDir, 'minion.pub');
  if (!existsSync(pemPath)) {
    const pair = generateKeyPair(keysize);
    writeAtomic(pemPath, pair.privatePem, 0o600);
    writeAtomic(pubPath, pair.publicPem, 0o644);
  }
  const privateKey = privateKeyFromPem(readFileSync(pemPath));
  const publicPem = publicPemOf(privateKey).trim();
  if (!existsSync(pubPath)) writeAtomic(pubPath, `${publicPem}\n`, 0o644);
  return { privateKey, publicPem };
}

/** The master's public key as cached on first contact (`minion_master.pub`), if any. */
export function readCachedMasterKey(pkiDir: string): { pem: string; key: KeyObject } | undefined {
  const path = join(pkiDir, 'minion_master.pub');
  if (!existsSync(path)) return undefined;
  const pem = readFileSync(path, 'utf8').trim();
  return { pem, key: publicKeyFromPem(pem) };
}

export function cacheMasterKey(pkiDir: string, pem: string): void {
  writeAtomic(join(pkiDir, 'minion_master.pub'), `${pem.trim()}\n`, 0o644);
}
