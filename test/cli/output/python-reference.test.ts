import { describe, expect, it } from 'vitest';
import { formatOutput, type Outputter } from '../../../src/cli/output';
import rows from './python-reference.json';

// python-reference.json holds what CPython 3 printed for each value: yaml.dump with PyYAML 6
// (SafeDumper, allow_unicode=True, default_flow_style=False), json.dumps(indent=4,
// ensure_ascii=False, default=repr), str() and pprint.pformat, each rstripped plus a newline
// as Salt's display_output prints them. Floats are encoded as {"$f": repr} in the fixture.
function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === 'object') {
    if ('$f' in v) {
      const s = (v as { $f: string }).$f;
      return s === 'nan' ? NaN : s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}

const outputters: Outputter[] = ['yaml', 'json', 'raw', 'pprint'];
type Row = Record<'yaml' | 'json' | 'raw' | 'pprint', string> & { data: unknown };

describe.each(outputters)('%s matches Python', (outputter) => {
  it.each((rows as Row[]).map((row, i) => [i, row] as const))('case %i', (_i, row) => {
    expect(formatOutput(outputter, decode(row.data))).toBe(row[outputter as keyof Row]);
  });
});
