import { describe, expect, it } from 'vitest';
import { formatOutput } from '../../../src/cli/output';
import { getColors, useColor } from '../../../src/cli/output/colors';
import { formatHighstate } from '../../../src/cli/output/highstate';
import cases from './color-reference.json';

// What Salt 3007.10's own outputters printed with colour on (color-reference.py runs them).
interface Case {
  outputter: 'nested' | 'highstate';
  data: Record<string, unknown>;
  retcode?: number;
  opts?: { state_output?: string };
  expected: string;
}

describe("Salt's colours", () => {
  it.each((cases as Case[]).map((c, i) => [i, c] as const))('case %i is what Salt printed', (_i, c) => {
    const text =
      c.outputter === 'nested'
        ? formatOutput('nested', c.data, { color: true, retcode: c.retcode })
        : formatHighstate(c.data, { colors: getColors(true), stateOutput: c.opts?.state_output }) + '\n';
    expect(text).toBe(c.expected.trimEnd() + '\n');
  });

  it('colour off prints the plain text, the same as without colours', () => {
    const c = (cases as Case[])[3];
    const plain = formatHighstate(c.data, {});
    expect(formatHighstate(c.data, { colors: getColors(false) })).toBe(plain);
    expect(plain).toBe(c.expected.replace(/\x1b\[[0-9;]*m/g, '').trimEnd());
  });

  it('--force-color wins, then --no-color, then only a terminal gets colours', () => {
    expect(useColor({}, true)).toBe(true);
    expect(useColor({}, false)).toBe(false);
    expect(useColor({ 'no-color': true }, true)).toBe(false);
    expect(useColor({ 'force-color': true }, false)).toBe(true);
    expect(useColor({ 'force-color': true, 'no-color': true }, false)).toBe(true);
  });
});
