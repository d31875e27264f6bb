/** Input guard shared by the crypto functions: callers pass Buffers, but garbage must not crash. */
import { CryptoError } from '../errors';

/** `value` as a Buffer (a Uint8Array is viewed, not copied); anything else is `BAD_INPUT`. */
export function asBytes(value: unknown, what: string): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new CryptoError('BAD_INPUT', `${what} must be bytes (Buffer or Uint8Array), got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
