/**
 * 64 bits of two FNV-1a-style 32-bit hashes of some text, for names and in-memory keys where
 * node:crypto would cost too much: loading it (0.8 MiB of the `salt` CLI's peak) or calling it (a
 * key per request). Not for anything an adversary must not collide: the inputs it is used on are
 * brine's own, or random.
 */

/** The two hashes, unsigned, of `parts` read in order with a 0 between each two. */
export function textHash(...parts: string[]): [number, number] {
  let length = parts.length - 1;
  for (const part of parts) length += part.length;
  let a = 0x811c9dc5;
  let b = 0x050c5d1f ^ length;
  for (let p = 0; p < parts.length; p++) {
    if (p > 0) {
      a = Math.imul(a, 0x01000193);
      b = Math.imul(b, 0x5bd1e995);
      b ^= b >>> 15;
    }
    const text = parts[p];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
  }
  return [a >>> 0, b >>> 0];
}

/** textHash as 16 hex digits (a file name). */
export function textHashHex(...parts: string[]): string {
  const [a, b] = textHash(...parts);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** 52 of textHash's bits as one number: exact in a double, so a Set or an array holds it unboxed or small. */
export function textHash52(...parts: string[]): number {
  const [a, b] = textHash(...parts);
  return (a >>> 12) * 2 ** 32 + b;
}
