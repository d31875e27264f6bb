import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAuthReply, pubSigVerifies, type OpenedAuthReply } from '../channel';
import { fingerprint, publicKeyFromPem, publicPemOf } from '../crypto/rsa';
import { DEFAULT_RSA_ALGORITHMS, SIGNING_ALGORITHMS, type RsaAlgorithms } from '../crypto/rsa-algorithms';
import { CryptoError } from '../errors';
import { MasterKeyMismatchError, offeredMasterKey } from './minion-errors';

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
  /** Salt's signed master key, as the minion's options set it (verify_master_pubkey_sign). */
  signedMasterKey?: SignedMasterKeySettings;
}

/** A minion's verify_master_pubkey_sign, always_verify_signature and master_sign_key_name. */
export interface SignedMasterKeySettings {
  verify: boolean;
  always: boolean;
  keyName: string;
}

/** An opened sign-in reply, and the master key to cache when the signing key vouched for a new one. */
export type TrustedAuthReply = OpenedAuthReply & { vouchedMasterKey?: string };

/**
 * Opens the sign-in reply. With a cached master key, a reply that key did not sign means another
 * master (or an impostor) answers: that is fatal, with both fingerprints, as in Salt. With
 * verify_master_pubkey_sign (Salt's verify_master), a new master key whose `pub_sig` the signing
 * key's public half (pki_dir/master_sign.pub) verifies is trusted instead, and returned to cache.
 */
export function openTrustedAuthReply(reply: Buffer, nonce: string, ctx: TrustContext): TrustedAuthReply {
  const offered = offeredMasterKey(reply);
  let signer = ctx.masterKey;
  let vouchedMasterKey: string | undefined;
  if (offered) {
    const signing = ctx.signedMasterKey ?? { verify: false, always: false, keyName: 'master_sign' };
    checkAuthDeps(offered.signed, signing.verify);
    // Parsing the offered key is left to openAuthReply unless the minion verifies signatures.
    const isNew = signing.verify && (!ctx.masterKey || !ctx.masterKey.equals(publicKeyFromPem(offered.pem)));
    if (signing.verify && (isNew || signing.always)) {
      verifyPubSig(offered.pem, offered.pubSig, signing, ctx, isNew);
      if (isNew) {
        vouchedMasterKey = offered.pem;
        signer = publicKeyFromPem(offered.pem);
      }
    }
  }
  try {
    const opened = openAuthReply(reply, signer ?? null, ctx.minionKey, nonce, ctx.algorithms);
    return vouchedMasterKey === undefined ? opened : { ...opened, vouchedMasterKey };
  } catch (err) {
    if (!(err instanceof CryptoError) || err.code !== 'BAD_SIGNATURE' || !ctx.masterKey) throw err;
    const hash = ctx.hashType ?? 'sha256';
    const cached = join(ctx.pkiDir, 'minion_master.pub');
    throw new MasterKeyMismatchError(
      `The master key has changed, the salt master could have been subverted, verify salt master's public key. ` +
        `This minion trusts the key in ${cached} (${fingerprint(publicPemOf(ctx.masterKey), hash)})` +
        (offered ? `; the master at ${ctx.master}:${ctx.masterPort} presents ${fingerprint(offered.pem, hash)}.` : '.'),
      `If the master was re-keyed on purpose, delete ${cached} on this minion and restart it; otherwise do not trust this master.`,
    );
  }
}

/** Salt's check_auth_deps: the master signs its key exactly when the minion checks it. */
function checkAuthDeps(signed: boolean, verify: boolean): void {
  if (signed && !verify) {
    throw new MasterKeyMismatchError(
      'The masters sent its public-key signature, but signature verification is not enabled on the minion. ' +
        'Either enable signature verification on the minion or disable signing the public key on the master!',
      "Set verify_master_pubkey_sign: True in the minion config (with the master's master_sign.pub in its pki_dir), or master_sign_pubkey: False on the master.",
    );
  }
  if (!signed && verify) {
    throw new MasterKeyMismatchError(
      'The master did not send its public-key signature, but signature verification is enabled on the minion. ' +
        'Either disable signature verification on the minion or enable signing the public on the master!',
      'Set master_sign_pubkey: True on the master, or verify_master_pubkey_sign: False in the minion config.',
    );
  }
}

/**
 * Salt's verify_pubkey_sig: `pub_sig` must verify with the minion's copy of the signing key's
 * public half, by the minion's signing_algorithm (the check itself is the channel's).
 */
function verifyPubSig(pem: string, pubSig: unknown, signing: SignedMasterKeySettings, ctx: TrustContext, isNew: boolean): void {
  const file = join(ctx.pkiDir, `${signing.keyName}.pub`);
  if (!existsSync(file)) {
    throw new MasterKeyMismatchError(
      `Verification public key ${signing.keyName}.pub does not exist. You need to copy it from the master to the minions pki directory`,
      `Copy ${signing.keyName}.pub from the master's pki_dir to ${ctx.pkiDir} on this minion.`,
    );
  }
  const hash = SIGNING_ALGORITHMS[(ctx.algorithms ?? DEFAULT_RSA_ALGORITHMS).sig];
  if (pubSigVerifies(readFileSync(file, 'utf8'), pem, pubSig, hash)) return;
  throw new MasterKeyMismatchError(
    isNew
      ? `Received signed public-key from master ${ctx.master} but signature verification failed!`
      : `The masters public could not be verified. Is the verification pubkey ${signing.keyName}.pub up to date?`,
    `The master's key is not vouched for by ${file}: check that file against ${signing.keyName}.pub on the master, and the master's master_sign_key_name.`,
  );
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
