/**
 * textHash: the compile cache's file names stay what they were (a changed name would orphan every
 * cached file), parts hash as their text joined with a 0, and the 52-bit form is exact.
 */
import { describe, expect, it } from 'vitest';
import { textHash, textHash52, textHashHex } from '../../src/core/text-hash';

describe('textHash', () => {
  it('names a text as the compile cache always has', () => {
    // Values of the cache's own hash before it moved here.
    expect(textHashHex('/srv/brine/dist/src/cli/main.js')).toBe('13ccf5a233f51054');
    expect(textHashHex('')).toBe('811c9dc5050c5d1f');
  });

  it('hashes parts as their text joined with a 0, without joining them', () => {
    expect(textHashHex('web1', 'a'.repeat(32))).toBe('01253c8045539e89');
    expect(textHash('web1', 'nonce')).toEqual(textHash('web1\0nonce'));
    expect(textHash('web1', 'nonce')).not.toEqual(textHash('web1n', 'once'));
  });

  it('gives 52 of its bits as an exact integer', () => {
    const [a, b] = textHash('web1', 'a'.repeat(32));
    const n = textHash52('web1', 'a'.repeat(32));
    expect(Number.isSafeInteger(n)).toBe(true);
    expect(n).toBeLessThan(2 ** 52);
    expect(n % 2 ** 32).toBe(b);
    expect(Math.floor(n / 2 ** 32)).toBe(a >>> 12);
  });
});
