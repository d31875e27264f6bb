/**
 * Salt's RSA algorithm names (salt/crypt.py VALID_SIGNING_ALGORITHMS and
 * VALID_ENCRYPTION_ALGORITHMS), each with its hash: what a publication's `sig_algo`, the master's
 * `publish_signing_algorithm`, and a request's `enc_algo` and `sig_algo` (a minion's
 * `encryption_algorithm` and `signing_algorithm`) take. Apart from rsa.ts so that reading a config
 * does not load node:crypto.
 */
export const SIGNING_ALGORITHMS = { 'PKCS1v15-SHA1': 'sha1', 'PKCS1v15-SHA224': 'sha224' } as const;
export const ENCRYPTION_ALGORITHMS = { 'OAEP-SHA1': 'sha1', 'OAEP-SHA224': 'sha224' } as const;

export type SigningAlgorithm = keyof typeof SIGNING_ALGORITHMS;
export type EncryptionAlgorithm = keyof typeof ENCRYPTION_ALGORITHMS;
/** The hashes Salt's algorithms use. */
export type RsaHash = 'sha1' | 'sha224';

/** The hash of a signing algorithm's name; undefined for a name Salt does not know. */
export function signingHash(name: unknown): RsaHash | undefined {
  return typeof name === 'string' && Object.hasOwn(SIGNING_ALGORITHMS, name) ? SIGNING_ALGORITHMS[name as SigningAlgorithm] : undefined;
}

/** The hash of an encryption algorithm's name; undefined for a name Salt does not know. */
export function encryptionHash(name: unknown): RsaHash | undefined {
  return typeof name === 'string' && Object.hasOwn(ENCRYPTION_ALGORITHMS, name)
    ? ENCRYPTION_ALGORITHMS[name as EncryptionAlgorithm]
    : undefined;
}

/** A minion's `encryption_algorithm` and `signing_algorithm`: what its requests name as `enc_algo` and `sig_algo`. */
export interface RsaAlgorithms {
  enc: EncryptionAlgorithm;
  sig: SigningAlgorithm;
}

/** Salt 3007's defaults. */
export const DEFAULT_RSA_ALGORITHMS: RsaAlgorithms = Object.freeze({ enc: 'OAEP-SHA1', sig: 'PKCS1v15-SHA1' });
