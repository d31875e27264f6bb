/**
 * The one base class for brine's errors. Every error has a stable `code` that tests and callers
 * match on, a message that says what went wrong, and where it helps a `hint` saying what to do.
 * Each subclass names the union of its codes (`ProtocolErrorCode`, ...), so a new code is a
 * deliberate change to that union and a caller's `switch (err.code)` is checked by the compiler.
 * It is abstract: every error is of a class that names its codes.
 */
export abstract class BrineError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly hint?: string;

  constructor(code: Code, message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}

/** An error's message and, where it has one, its hint: one line for a log. */
export function withHint(err: BrineError): string {
  return err.hint ? `${err.message}; ${err.hint}` : err.message;
}

/** Every code of the core's error classes. */
export type CoreErrorCode = ProtocolErrorCode | CryptoErrorCode | TransportErrorCode | ConfigErrorCode | TargetErrorCode;

/** Bytes or values that do not form a valid Salt message. */
/** The codes a {@link ProtocolError} carries. */
export type ProtocolErrorCode =
  | 'BAD_ID'
  | 'BAD_JID'
  | 'BAD_LOAD'
  | 'BAD_RSA_JOB'
  | 'MASTER_BAD_LOAD'
  | 'MSGPACK_DEPTH'
  | 'MSGPACK_LENGTH'
  | 'MSGPACK_TRAILING'
  | 'MSGPACK_TRUNCATED'
  | 'MSGPACK_TYPE';
export class ProtocolError extends BrineError<ProtocolErrorCode> {}

/** A failed cryptographic check (HMAC, padding, signature) or an unusable key. */
/** The codes a {@link CryptoError} carries. */
export type CryptoErrorCode =
  | 'BAD_HASH'
  | 'BAD_HMAC'
  | 'BAD_INPUT'
  | 'BAD_IV'
  | 'BAD_KEY'
  | 'BAD_KEYSIZE'
  | 'BAD_NONCE'
  | 'BAD_PADDING'
  | 'BAD_SIGNATURE'
  | 'BAD_TOK'
  | 'DATA_TOO_LONG'
  | 'DECRYPT_FAILED'
  | 'NO_SESSION'
  | 'NO_SIGNATURE'
  | 'SIGN_FAILED'
  | 'TRUNCATED';
export class CryptoError extends BrineError<CryptoErrorCode> {}

/** A socket-level failure, wrapped at the transport boundary. */
/** The codes a {@link TransportError} carries. */
export type TransportErrorCode = 'ACCEPT' | 'ADDRESS_IN_USE' | 'CLOSED' | 'OPEN_FILES' | 'TIMEOUT' | 'TRANSPORT';
export class TransportError extends BrineError<TransportErrorCode> {}

/** A configuration file or option that cannot be used. */
/** The codes a {@link ConfigError} carries. */
export type ConfigErrorCode =
  | 'BAD_CONFIG'
  | 'BAD_CONFIG_DIR'
  | 'BAD_LOGGER_NAME'
  | 'BAD_LOG_FILE'
  | 'BAD_LOG_LEVEL'
  | 'BAD_OPTION'
  | 'BAD_YAML'
  | 'NO_API_CONFIG'
  | 'NO_SSL_CERT'
  | 'PKI_PERMISSIONS'
  | 'UNKNOWN_JOB_CACHE';
export class ConfigError extends BrineError<ConfigErrorCode> {}

/** A malformed target expression. */
/** The codes a {@link TargetError} carries. */
export type TargetErrorCode = 'BAD_MINION_DATA' | 'BAD_TARGET';
export class TargetError extends BrineError<TargetErrorCode> {}
