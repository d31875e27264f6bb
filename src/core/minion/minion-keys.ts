import { existsSync, readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { ensureKeyPair, PUBLIC_KEY_MODE, writeFileAtomicAsync } from '../crypto/key-files';
import { publicKeyFromPem, publicPemOf } from '../crypto/rsa';

export interface MinionKeys {
  privateKey: KeyObject;
  /** The public key as sent in `_auth`: the PEM without surrounding whitespace. */
  publicPem: string;
}

/** minion.pem and minion.pub in pki_dir, created on first start as Salt does (see ensureKeyPair). */
export function ensureMinionKeys(pkiDir: string, keysize: number): MinionKeys {
  const { privateKey } = ensureKeyPair(pkiDir, 'minion', keysize);
  return { privateKey, publicPem: publicPemOf(privateKey).trim() };
}

/** The master's public key as cached on first contact (`minion_master.pub`), if any. */
export function readCachedMasterKey(pkiDir: string): { pem: string; key: KeyObject } | undefined {
  const path = join(pkiDir, 'minion_master.pub');
  if (!existsSync(path)) return undefined;
  const pem = readFileSync(path, 'utf8').trim();
  return { pem, key: publicKeyFromPem(pem) };
}

/** Writes `minion_master.pub` (atomically, fsynced) without holding the event loop. */
export function cacheMasterKey(pkiDir: string, pem: string): Promise<void> {
  return writeFileAtomicAsync(join(pkiDir, 'minion_master.pub'), `${pem.trim()}\n`, PUBLIC_KEY_MODE);
}
