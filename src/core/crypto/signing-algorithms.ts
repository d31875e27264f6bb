/**
 * Salt's VALID_SIGNING_ALGORITHMS (salt/crypt.py): the names a publication's `sig_algo` and the
 * master's `publish_signing_algorithm` take, each PKCS#1 v1.5 with its hash. Apart from rsa.ts so
 * that reading a config does not load node:crypto.
 */
export const SIGNING_ALGORITHMS = { 'PKCS1v15-SHA1': 'sha1', 'PKCS1v15-SHA224': 'sha224' } as const;

export type SigningAlgorithm = keyof typeof SIGNING_ALGORITHMS;

/** The hash of a signing algorithm's name; undefined for a name Salt does not know. */
export function signingHash(name: unknown): (typeof SIGNING_ALGORITHMS)[SigningAlgorithm] | undefined {
  return typeof name === 'string' && Object.hasOwn(SIGNING_ALGORITHMS, name) ? SIGNING_ALGORITHMS[name as SigningAlgorithm] : undefined;
}
