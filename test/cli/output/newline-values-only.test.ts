import { describe, expect, it } from 'vitest';
import { formatOutput } from '../../../src/cli/output';

describe('--out newline_values_only', () => {
  it("prints each minion's value on a line, list items one per line, as Salt's outputter", () => {
    // Expected text from Salt's salt/output/newline_values_only.py on the same data (python3).
    const data = { a: true, b: [1, 'x', null], c: { k: 1 }, d: 'two\nlines' };
    expect(formatOutput('newline_values_only', data)).toBe("True\n1\nx\nNone\n{'k': 1}\ntwo\nlines\n");
    expect(formatOutput('newline_values_only', { web1: true }, { static: false })).toBe('True\n');
  });
});
