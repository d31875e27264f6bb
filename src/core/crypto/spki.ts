/**
 * SubjectPublicKeyInfo <-> PKCS#1 for RSA public keys, as DER bytes.
 *
 * Why by hand: OpenSSL 3 goes through its generic decoder and encoder for SPKI, which costs about
 * 180 µs to load a 2048-bit public key and 110 µs to write one as PEM, against 6 µs and 3 µs for
 * PKCS#1 DER. Every sign-in loads the minion's key and every reply to it writes PEM, so on a
 * sign-in storm that was a large part of the master's main thread. The RSA SPKI wrapper is a fixed
 * 15-byte algorithm identifier and a BIT STRING around the PKCS#1 key; anything else (another
 * algorithm, parameters, long-form oddities) is left to OpenSSL by returning undefined.
 */

/** SEQUENCE { OID 1.2.840.113549.1.1.1 (rsaEncryption), NULL } */
const RSA_ALGORITHM = Buffer.from('300d06092a864886f70d0101010500', 'hex');

/** A DER length at `at`: [length, bytes it took], or undefined when malformed or not minimal. */
function readLength(der: Buffer, at: number): [number, number] | undefined {
  const first = der[at];
  if (first === undefined) return undefined;
  if (first < 0x80) return [first, 1];
  const count = first & 0x7f;
  if (count === 0 || count > 3 || at + count >= der.length) return undefined;
  let length = 0;
  for (let i = 1; i <= count; i++) length = length * 256 + der[at + i]!;
  if (length < 0x80 || der[at + 1] === 0) return undefined; // DER wants the shortest form
  return [length, 1 + count];
}

function writeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** The PKCS#1 RSAPublicKey inside an RSA SPKI, or undefined when `der` is not exactly that shape. */
export function pkcs1FromSpki(der: Buffer): Buffer | undefined {
  if (der[0] !== 0x30) return undefined;
  const outer = readLength(der, 1);
  if (!outer || 1 + outer[1] + outer[0] !== der.length) return undefined;
  let at = 1 + outer[1];
  if (!der.subarray(at, at + RSA_ALGORITHM.length).equals(RSA_ALGORITHM)) return undefined;
  at += RSA_ALGORITHM.length;
  if (der[at] !== 0x03) return undefined;
  const bits = readLength(der, at + 1);
  if (!bits || at + 1 + bits[1] + bits[0] !== der.length) return undefined;
  at += 1 + bits[1];
  if (der[at] !== 0x00 || bits[0] < 2) return undefined; // no unused bits in a DER key
  return der.subarray(at + 1);
}

/** The RSA SPKI around a PKCS#1 RSAPublicKey (what OpenSSL writes as `BEGIN PUBLIC KEY`). */
export function spkiFromPkcs1(pkcs1: Buffer): Buffer {
  const bitString = Buffer.concat([Buffer.from([0x03]), writeLength(pkcs1.length + 1), Buffer.from([0x00]), pkcs1]);
  const body = RSA_ALGORITHM.length + bitString.length;
  return Buffer.concat([Buffer.from([0x30]), writeLength(body), RSA_ALGORITHM, bitString]);
}

/** DER as PEM: base64 in 64-character lines between the labels, with a final newline (OpenSSL's form). */
export function derToPem(der: Buffer, label: string): string {
  const b64 = der.toString('base64');
  let lines = '';
  for (let i = 0; i < b64.length; i += 64) lines += `${b64.slice(i, i + 64)}\n`;
  return `-----BEGIN ${label}-----\n${lines}-----END ${label}-----\n`;
}

/**
 * The DER between `-----BEGIN <label>-----` and its END line, or undefined when the text is not a
 * single such block of plain base64 (PEM headers, other blocks: left to OpenSSL).
 */
export function pemToDer(text: string, label: string): Buffer | undefined {
  const begin = `-----BEGIN ${label}-----`;
  const end = `-----END ${label}-----`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) return undefined;
  if (text.slice(0, start).trim() !== '' || text.slice(stop + end.length).trim() !== '') return undefined;
  const body = text.slice(start + begin.length, stop);
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return Buffer.from(body, 'base64');
}
