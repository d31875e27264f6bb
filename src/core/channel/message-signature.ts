/**
 * Salt's `minion_sign_messages`: a minion signs the loads of its returns and events with its own
 * key (PKCS#1 v1.5, SHA-1: `salt.crypt.sign_message`'s default, whatever `signing_algorithm` says)
 * and sends the signature in the load as `sig`; a master checks it on `_return` (salt/master.py),
 * requires it with `require_minion_sign_messages` and drops a return that fails with
 * `drop_messages_signature_fail`.
 *
 * What is signed. A Salt 3007 minion signs its load before its channel adds `nonce`, `ts` and
 * `tok`, and a job's return crosses the minion's own event bus after that, which adds `_stamp`;
 * Salt's master pops `nonce`, `tok` and `sig` and checks the rest, which still holds `ts` (and
 * `_stamp`). So a Salt master never verifies its own minions' signatures (measured against Salt
 * 3007.10: "Failed to verify event signature", every return dropped with
 * drop_messages_signature_fail). brine's minion signs what Salt's master checks (the load with
 * its `ts`), so a Salt master verifies it; brine's master accepts that form and the two a Salt
 * minion signs, so Salt's minions verify too.
 */
import { signPkcs1v15Async, verifyPkcs1v15, type RsaKeyInput } from '../crypto/rsa';
import { encode, toBytes } from '../protocol/msgpack';
import { repackForSignature } from '../protocol/msgpack-repack';
import type { Obj } from '../protocol/loads';

/** What Salt's master leaves out of the load it checks. */
const MASTER_CHECKS_WITHOUT: ReadonlySet<string> = new Set(['sig', 'nonce', 'tok']);
/** What a Salt minion's signature leaves out: its channel adds all of these after signing... */
const SALT_MINION_SIGNS_WITHOUT: ReadonlySet<string> = new Set(['sig', 'nonce', 'tok', 'ts']);
/** ...and its event bus `_stamp`, for what a job's process hands its main process to send. */
const SALT_MINION_JOB_SIGNS_WITHOUT: ReadonlySet<string> = new Set(['sig', 'nonce', 'tok', 'ts', '_stamp']);

/** The commands whose loads a signing minion signs: Salt's `_send_req_*`, its returns and events. */
export function isSignedCommand(cmd: unknown): boolean {
  return cmd === '_return' || cmd === '_minion_event';
}

/**
 * The `sig` for `load` sent with this `ts` (aes requests add `ts` after the load's own fields,
 * see buildAesRequest): the load as Salt's master will repack it, signed on libuv's thread pool.
 */
export function signMinionMessage(minionPrivateKey: RsaKeyInput, load: Obj, ts: number): Promise<Buffer> {
  const signed = repackForSignature(encode({ ...load, ts }), MASTER_CHECKS_WITHOUT);
  return signPkcs1v15Async(minionPrivateKey, signed, 'sha1');
}

/**
 * Whether `sig` is the minion's signature of the load whose decrypted msgpack is `plain`: as
 * Salt's master checks it (brine's minions sign so), or as Salt's minions sign it (without `ts`,
 * and without `_stamp` for a job's return). At most three public-key checks, about 30 µs each.
 */
export function minionMessageSigned(minionPublicKey: RsaKeyInput, plain: Buffer, sig: unknown): boolean {
  // A raw string that is valid UTF-8 decodes as text (see toBytes); anything else is no signature.
  if (!(sig instanceof Uint8Array) && typeof sig !== 'string') return false;
  const signature = toBytes(sig);
  return (
    verifyPkcs1v15(minionPublicKey, repackForSignature(plain, MASTER_CHECKS_WITHOUT), signature, 'sha1') ||
    verifyPkcs1v15(minionPublicKey, repackForSignature(plain, SALT_MINION_JOB_SIGNS_WITHOUT), signature, 'sha1') ||
    verifyPkcs1v15(minionPublicKey, repackForSignature(plain, SALT_MINION_SIGNS_WITHOUT), signature, 'sha1')
  );
}
