/** The minion's fatal errors, the texts they carry, and helpers that read replies for them. */
import { BrineError } from '../errors';
import { decode } from '../protocol/msgpack';

/** Salt's exit code when the master rejected this minion's key (EX_NOPERM). */
export const EXIT_REJECTED = 77;

export class MinionRejectedError extends BrineError<'KEY_REJECTED'> {
  constructor(message: string, hint: string) {
    super('KEY_REJECTED', message, { hint });
  }
}

/** The master presents another key than the one this minion trusts: refuse to talk to it. */
export class MasterKeyMismatchError extends BrineError<'MASTER_KEY_MISMATCH'> {
  constructor(message: string, hint: string) {
    super('MASTER_KEY_MISMATCH', message, { hint });
  }
}

/** Why sign-in gave up: no answer in time, or the key waits for acceptance. */
export type SignInErrorCode = 'SIGN_IN_TIMEOUT' | 'SIGN_IN_PENDING';

/** Every code of the minion's error classes. */
export type MinionErrorCode = 'KEY_REJECTED' | 'MASTER_KEY_MISMATCH' | SignInErrorCode | MinionStateErrorCode | IdentityErrorCode;

/** The channel client used out of order, or while stopping. */
export type MinionStateErrorCode = 'NOT_CONNECTED' | 'STOPPED';
export class MinionStateError extends BrineError<MinionStateErrorCode> {}

/** The minion's identity sources (hostname, DNS, host files) failing or misused. */
export type IdentityErrorCode = 'LOOKUP_TIMEOUT' | 'NO_PTR' | 'BAD_ROOT' | 'BAD_TIMEOUT' | 'BAD_PATH';
export class IdentityError extends BrineError<IdentityErrorCode> {}

/**
 * salt-call's sign-in failed (Salt's caller mode signs in once, before running anything): the
 * master did not answer (exit 1) or our key is not accepted yet (exit 2), with Salt's texts.
 */
export class SignInError extends BrineError<SignInErrorCode> {
  constructor(
    code: SignInErrorCode,
    message: string,
    readonly exitCode: number,
  ) {
    super(code, message);
  }
}

/** Salt's CRITICAL text when the master rejected our key, with brine's hint on why. */
export function rejectedError(id: string): MinionRejectedError {
  return new MinionRejectedError(
    "The Salt Master has rejected this minion's public key!\n" +
      'To repair this issue, delete the public key for this minion on the Salt Master and restart this minion.\n' +
      'Or restart the Salt Master in open mode to clean out the keys. The Salt Minion will now exit.',
    `Check on the master with 'salt-key -L': a key under Rejected or Denied for '${id}' means the master refused it ` +
      '(a Denied key means another machine already uses this id).',
  );
}

export function decodeOrNull(bytes: Buffer): unknown {
  try {
    return decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The master key an accepted sign-in reply carries, and its `pub_sig` when the master signs its key
 * (master_sign_pubkey), read before anything in the reply is trusted.
 */
export function offeredMasterKey(reply: Buffer): { pem: string; signed: boolean; pubSig?: unknown } | undefined {
  try {
    const outer = decode(reply) as { load?: unknown };
    const inner = decode(Buffer.isBuffer(outer.load) ? outer.load : Buffer.from(String(outer.load), 'utf8')) as Record<string, unknown>;
    if (typeof inner.pub_key !== 'string') return undefined;
    return 'pub_sig' in inner ? { pem: inner.pub_key, signed: true, pubSig: inner.pub_sig } : { pem: inner.pub_key, signed: false };
  } catch {
    return undefined;
  }
}
