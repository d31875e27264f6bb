/**
 * IPv4 text as Python's `ipaddress` reads it (Salt decides "is this id an IP" with it): exactly four
 * ASCII decimal octets 0-255, at most three digits, no leading zeros.
 */
const OCTET = /^(?:0|[1-9][0-9]{0,2})$/;

/** The address as a 32-bit number, or null when the text is not an IPv4 address. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!OCTET.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

export function isIPv4(text: string): boolean {
  return parseIPv4(text) !== null;
}

/** 127.0.0.0/8, what `ipaddress.ip_address(a).is_loopback` says for IPv4. */
export function isLoopbackIPv4(text: string): boolean {
  const n = parseIPv4(text);
  return n !== null && Math.floor(n / 2 ** 24) === 127;
}
