/**
 * IPv4 text as Python's `ipaddress` reads it (Salt decides "is this id an IP" with it), through
 * the one `ipaddress` port in pycompat.
 */
import { isLoopback, parseIp } from '../../pycompat';

/** The address as a 32-bit number, or null when the text is not an IPv4 address. */
export function parseIPv4(text: string): number | null {
  const ip = parseIp(text);
  return ip?.version === 4 ? Number(ip.value) : null;
}

export function isIPv4(text: string): boolean {
  return parseIPv4(text) !== null;
}

/** 127.0.0.0/8, what `ipaddress.ip_address(a).is_loopback` says for IPv4. */
export function isLoopbackIPv4(text: string): boolean {
  const ip = parseIp(text);
  return ip?.version === 4 && isLoopback(ip);
}
