import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { openAuthReply, type OpenedAuthReply } from '../channel';
import { fingerprint } from '../crypto/rsa';
import type { RsaAlgorithms } from '../crypto/rsa-algorithms';
import { CryptoError } from '../errors';
import { MasterKeyMismatchError, offeredMasterKey } from './minion-errors';
import { readCachedMasterKey } from './minion-keys';

/** What the minion knows when it decides whether to trust the master that answered. */
export interface TrustContext {
  pkiDir: string;
  master: string;
  masterPort: number;
  hashType?: string;
  /** The cached master key (`minion_master.pub`), if any: without it, first contact. */
  masterKey?: KeyObject;
  minionKey: KeyObject;
  /** The minion's encryption_algorithm and signing_algorithm, which its request named. */
  algorithms?: RsaAlgorithms;
}

/**
 * Opens the sign-in reply. With a cached master key, a reply that key did not sign means another
 * master (or an impostor) answers: that is fatal, with both fingerprints, as in Salt.
 */
export function openTrustedAuthReply(reply: Buffer, nonce: string, ctx: TrustContext): OpenedAuthReply {
  try {
    return openAuthReply(reply, ctx.masterKey ?? null, ctx.minionKey, nonce, ctx.algorithms);
  } catch (err) {
    if (!(err instanceof CryptoError) || err.code !== 'BAD_SIGNATURE' || !ctx.masterKey) throw err;
    const hash = ctx.hashType ?? 'sha256';
    const cached = join(ctx.pkiDir, 'minion_master.pub');
    const offered = offeredMasterKey(reply);
    throw new MasterKeyMismatchError(
      `The master key has changed, the salt master could have been subverted, verify salt master's public key. ` +
        `This minion trusts the key in ${cached} (${fingerprint(readCachedMasterKey(ctx.pkiDir)!.pem, hash)})` +
        (offered ? `; the master at ${ctx.master}:${ctx.masterPort} presents ${fingerprint(offered, hash)}.` : '.'),
      `If the master was re-keyed on purpose, delete ${cached} on this minion and restart it; otherwise do not trust this master.`,
    );
  }
}

/** master_finger pins the master key before first contact. */
export function checkMasterFinger(pem: string, want: string | undefined, hashType = 'sha256'): void {
  if (!want) return;
  const got = fingerprint(pem, hashType);
  if (got.toLowerCase() !== want.toLowerCase()) {
    throw new MasterKeyMismatchError(
      `The specified fingerprint in the master configuration file (master_finger ${want}) does not match the master's key (${got}): refusing to trust it.`,
      `Check master_finger in the minion configuration against 'salt-key -F master' on the master.`,
    );
  }
}
