/**
 * YAML 1.1 implicit typing of plain scalars exactly as PyYAML's SafeLoader (and Salt's
 * SaltYamlSafeLoader on top of it) resolves them. Salt reads its config files and the CLI's
 * positional arguments this way, so `yes` is a boolean, `1e5` a string and `1:30` the integer 90;
 * the `yaml` package's own 1.1 schema differs in such corners, so brine resolves them itself.
 * The YAML outputter uses the same tables to decide when a string must be quoted.
 */

export type PlainScalarKind = 'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'merge' | 'value' | 'str';

const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const BOOL_RE = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const TIMESTAMP_RE =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;

/** Which type PyYAML gives a plain (unquoted) scalar with this text. Order as PyYAML's resolver. */
export function classifyPlainScalar(text: string): PlainScalarKind {
  // PyYAML's `$` also matches before one trailing newline; a plain scalar never ends in one
  // when loading, and the emitter never writes a multi-line plain scalar, so this is equivalent.
  if (BOOL_RE.test(text)) return 'bool';
  if (FLOAT_RE.test(text)) return 'float';
  if (INT_RE.test(text)) return 'int';
  if (text === '<<') return 'merge';
  if (NULL_RE.test(text)) return 'null';
  if (TIMESTAMP_RE.test(text)) return 'timestamp';
  if (text === '=') return 'value';
  return 'str';
}

/** PyYAML's bool constructor. */
export function constructBool(text: string): boolean {
  return ['yes', 'true', 'on'].includes(text.toLowerCase());
}

/** Integers beyond 2^53 stay exact as bigint (jids are 20-digit numbers). */
export function constructInt(text: string): number | bigint {
  let value = text;
  // SaltYamlSafeLoader strips leading zeros so `0777` is 777, not octal 511 (salt/utils/yamlloader.py).
  if (value !== '0' && value.startsWith('0') && !value.startsWith('0b') && !value.startsWith('0x')) {
    value = value.replace(/^0+/, '') || '0';
  }
  value = value.replace(/_/g, '');
  let sign = 1n;
  if (value.startsWith('-')) {
    sign = -1n;
    value = value.slice(1);
  } else if (value.startsWith('+')) {
    value = value.slice(1);
  }
  let big: bigint;
  if (value === '0') big = 0n;
  else if (value.startsWith('0b')) big = BigInt(value);
  else if (value.startsWith('0x')) big = BigInt(value);
  else if (value.startsWith('0')) big = BigInt('0o' + value.slice(1));
  else if (value.includes(':')) {
    big = 0n;
    for (const part of value.split(':')) big = big * 60n + BigInt(part);
  } else big = BigInt(value);
  big *= sign;
  return narrowInt(big);
}

/** A bigint as a number when it is exactly representable. */
export function narrowInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** PyYAML's float constructor. */
export function constructFloat(text: string): number {
  let value = text.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (value.startsWith('-')) {
    sign = -1;
    value = value.slice(1);
  } else if (value.startsWith('+')) {
    value = value.slice(1);
  }
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) {
    let result = 0;
    for (const part of value.split(':')) result = result * 60 + Number(part);
    return sign * result;
  }
  return sign * Number(value);
}

/**
 * The value PyYAML's SafeLoader gives a plain scalar: null, bool, int, float, or the text itself
 * (timestamps stay text, as brine's consumers want them).
 *
 * @example
 * resolvePlainScalar('0777') // 777
 * resolvePlainScalar('yes') // true
 */
export function resolvePlainScalar(text: string): null | boolean | number | bigint | string {
  switch (classifyPlainScalar(text)) {
    case 'null':
      return null;
    case 'bool':
      return constructBool(text);
    case 'int':
      return constructInt(text);
    case 'float':
      return constructFloat(text);
    default:
      return text;
  }
}
