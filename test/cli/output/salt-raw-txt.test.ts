import { describe, expect, it } from 'vitest';
import { formatOutput } from '../../../src/cli/output';
import { decode, holdsWholeFloat, tables } from '../../core/pycompat/python-tables';

// What Salt 3007.10's own salt.output.raw and salt.output.txt returned for each value
// (test/core/pycompat/fixtures/make-tables.py), rstripped plus a newline as Salt's display_output prints them.
// brine's formatOutput prints nothing at all for empty output, where Salt prints an empty line.
function printed(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed === '' ? '' : trimmed + '\n';
}

const rows = tables.outputters.filter((r) => !holdsWholeFloat(r.value));

describe("raw and txt outputters against Salt's", () => {
  it.each(rows.map((r) => [JSON.stringify(r.value).slice(0, 60), r] as const))('raw %s', (_label, row) => {
    expect(formatOutput('raw', decode(row.value))).toBe(printed(row.raw));
  });
  it.each(rows.map((r) => [JSON.stringify(r.value).slice(0, 60), r] as const))('txt %s', (_label, row) => {
    expect(formatOutput('txt', decode(row.value))).toBe(printed(row.txt));
  });
});
