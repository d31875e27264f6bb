/**
 * Python's arithmetic on the numbers of a template: int and float kept apart as Python keeps
 * them (`4 / 2` is `2.0`, `7 // 2` is `3`, `-7 // 2` is `-4`, `2 ** -1` is `0.5`, `1.0 + 1` is
 * `2.0`), bool counting as int, and Python's errors (`division by zero`, unsupported operand types).
 * Whole floats are pycompat's PyFloat so that they print `2.0`.
 */
import { PyFloat, isPyFloat, pyFloatOf, pyTypeName } from '../../pycompat';
import { TemplateRuntimeError } from './template-error';

/** The numeric value of an int, float or bool; undefined for anything else. */
export function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

function typeName(v: unknown): string {
  try {
    return pyTypeName(v);
  } catch {
    return typeof v;
  }
}

/** Python's binary arithmetic operators on numbers: `+ - * / // % **`. */
export function pyArith(op: string, a: unknown, b: unknown, line?: number): number | PyFloat {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === undefined || y === undefined)
    throw new TemplateRuntimeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, line);
  let float = isPyFloat(a) || isPyFloat(b);
  let r: number;
  switch (op) {
    case '+':
      r = x + y;
      break;
    case '-':
      r = x - y;
      break;
    case '*':
      r = x * y;
      break;
    case '/':
      if (y === 0) throw new TemplateRuntimeError(float ? 'float division by zero' : 'division by zero', line);
      r = x / y;
      float = true;
      break;
    case '//':
      if (y === 0) throw new TemplateRuntimeError(float ? 'float floor division by zero' : 'integer division or modulo by zero', line);
      r = Math.floor(x / y);
      break;
    case '%':
      if (y === 0) throw new TemplateRuntimeError(float ? 'float modulo' : 'integer division or modulo by zero', line);
      r = x - y * Math.floor(x / y);
      break;
    case '**':
      if (x === 0 && y < 0) throw new TemplateRuntimeError('0.0 cannot be raised to a negative power', line);
      r = x ** y;
      if (y < 0) float = true;
      break;
    default:
      throw new TemplateRuntimeError(`unknown operator ${op}`, line);
  }
  return float ? pyFloatOf(r) : r;
}

/** Python's unary `-` and `+`. */
export function pyUnary(op: '-' | '+', a: unknown, line?: number): number | PyFloat {
  const x = numberOf(a);
  if (x === undefined) throw new TemplateRuntimeError(`bad operand type for unary ${op}: '${typeName(a)}'`, line);
  const r = op === '-' ? -x : x;
  return isPyFloat(a) ? pyFloatOf(r) : r === 0 ? 0 : r;
}
