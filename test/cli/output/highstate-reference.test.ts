/**
 * The highstate and nested outputters against a real Salt 3007.10's (highstate-reference.json,
 * made by highstate-reference.py from corpus returns): Salt's colours, every state_output mode,
 * state_verbose, and the batch display (`{retcode, jid, minion: ...}`).
 */
import { describe, expect, it } from 'vitest';
import { formatOutput } from '../../../src/cli/output';
import { formatHighstate } from '../../../src/cli/output/highstate';
import { getColors } from '../../../src/cli/output/colors';
import rows from './highstate-reference.json';

interface Row {
  name: string;
  data: Record<string, unknown>;
  out?: 'nested';
  color: boolean;
  state_output?: string;
  state_verbose?: boolean;
  retcode?: number;
  expected: string;
}

describe('highstate and nested outputters match Salt 3007.10', () => {
  it.each((rows as Row[]).map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const text =
      row.out === 'nested'
        ? formatOutput('nested', row.data, { color: row.color, retcode: row.retcode })
        : formatHighstate(row.data, { colors: getColors(row.color), stateOutput: row.state_output, stateVerbose: row.state_verbose }) +
          '\n';
    // Salt's display_output strips trailing whitespace and adds one newline.
    expect(text).toBe(row.expected.replace(/\s+$/u, '') + '\n');
  });
});
