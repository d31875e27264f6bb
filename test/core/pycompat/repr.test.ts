import { describe, expect, it } from 'vitest';
import { formatPprint, pyRepr, pyStr, pyTupleRepr, pyTypeName } from '../../../src/core/pycompat';
import { decode, holdsWholeFloat, tables } from './python-tables';

// Rows whose value holds a whole-valued float (0.0, 123456789.0) are left out: a JavaScript number
// cannot carry Python's int/float distinction for them, so brine prints them as ints.
const rows = tables.repr.filter((r) => !holdsWholeFloat(r.value));

describe('repr/str/pformat against Python 3.11', () => {
  it('covers the table (whole-valued floats aside)', () => {
    expect(rows.length).toBeGreaterThan(70);
    expect(tables.repr.length - rows.length).toBeLessThan(6);
  });
  it.each(rows.map((r) => [r.repr, r] as const))('repr %s', (_label, row) => {
    expect(pyRepr(decode(row.value))).toBe(row.repr);
  });
  it.each(rows.map((r) => [r.repr, r] as const))('str %s', (_label, row) => {
    expect(pyStr(decode(row.value))).toBe(row.str);
  });
  it.each(rows.map((r) => [r.repr, r] as const))('pformat %s', (_label, row) => {
    expect(formatPprint(decode(row.value))).toBe(row.pformat);
  });
  it.each(tables.tuple.map((r) => [r.repr, r] as const))('tuple %s', (_label, row) => {
    expect(pyTupleRepr(decode(row.items) as unknown[])).toBe(row.repr);
  });
  it.each(tables.type.filter((r) => !holdsWholeFloat(r.value)).map((r) => [JSON.stringify(r.value), r] as const))(
    'type(%s).__name__',
    (_label, row) => {
      expect(pyTypeName(decode(row.value))).toBe(row.name);
    },
  );
  it('answers the issue`s cases', () => {
    expect(pyRepr(Buffer.from([0, 39]))).toBe(`b"\\x00'"`);
    expect(pyRepr(1e16)).toBe('1e+16');
    expect(pyRepr({ a: 1 })).toBe("{'a': 1}");
  });
});
