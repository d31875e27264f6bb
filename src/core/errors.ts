/**
 * The one base class for brine's errors. Every error has a stable `code` that tests and callers
 * match on, a message that says what went wrong, and where it helps a `hint` saying what to do.
 */
export class BrineError extends Error {
  readonly code: string;
  readonly hint?: string;

  constructor(code: string, message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}

/** Bytes or values that do not form a valid Salt message. */
export class ProtocolError extends BrineError {}

/** A failed cryptographic check (HMAC, padding, signature) or an unusable key. */
export class CryptoError extends BrineError {}

/** A socket-level failure, wrapped at the transport boundary. */
export class TransportError extends BrineError {}

/** A configuration file or option that cannot be used. */
export class ConfigError extends BrineError {}

/** A malformed target expression. */
export class TargetError extends BrineError {}
