/**
 * Key fingerprints as `salt-key -f` prints them (Salt's `pem_finger`): the hash of the PEM body
 * lines (every non-blank line between the first and the last, newlines included, NOT base64
 * decoded), as lowercase hex pairs joined by ':'.
 */
import { createHash, getHashes } from 'node:crypto';
import { CryptoError } from '../errors';

const knownHashes = new Set(getHashes().map((h) => h.toLowerCase()));

export function fingerprint(pemText: string | Buffer, hash = 'sha256'): string {
  const algo = typeof hash === 'string' ? hash.toLowerCase() : '';
  if (!knownHashes.has(algo)) {
    throw new CryptoError('BAD_HASH', `unknown hash type '${hash}'`, { hint: 'use e.g. sha256, sha512, md5' });
  }
  if (typeof pemText !== 'string' && !Buffer.isBuffer(pemText)) {
    throw new CryptoError('BAD_KEY', 'a fingerprint needs PEM text');
  }
  const text = typeof pemText === 'string' ? pemText : pemText.toString('utf8');
  // Python's readlines() keeps each line's newline; blank lines are dropped before slicing.
  const lines = text.split(/(?<=\n)/).filter((line) => line.trim() !== '');
  if (lines.length < 3 || !lines[0].startsWith('-----BEGIN ') || !lines[lines.length - 1].startsWith('-----END ')) {
    throw new CryptoError('BAD_KEY', 'not a PEM key (needs BEGIN line, body, END line)');
  }
  const digest = createHash(algo).update(lines.slice(1, -1).join('')).digest('hex');
  return digest.match(/../g)!.join(':');
}
