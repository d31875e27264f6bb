import { describe, expect, it } from 'vitest';
import { batchRetcode } from '../../src/cli/batch';
import { batchSize } from '../../src/core/client/batch-size';
import { progressLine } from '../../src/cli/batch-progress';
import { summaryText } from '../../src/cli/salt';

const ret = (r: unknown, retcode = 0) => ({ id: 'm', jid: 'j', return: r, retcode, success: true });

describe('batch', () => {
  it('sizes the window as Salt does: N, or N% of the minions up (at least 1)', () => {
    expect(batchSize('3', 10)).toBe(3);
    expect(batchSize('50%', 10)).toBe(5);
    expect(batchSize('25%', 10)).toBe(2);
    expect(batchSize('5%', 10)).toBe(1);
    for (const bad of ['0', 'x', '-2', '10%%']) expect(() => batchSize(bad, 10)).toThrow(/Invalid batch data sent/);
  });

  it("exits with Salt's get_retcode: retcode of dict returns, 1 for False, else 0", () => {
    expect(batchRetcode(ret({ a: 1 }, 3))).toBe(3);
    expect(batchRetcode(ret({ retcode: 5 }, 0))).toBe(5);
    expect(batchRetcode(ret('text', 3))).toBe(0);
    expect(batchRetcode(ret(false))).toBe(1);
    expect(batchRetcode(ret(true))).toBe(0);
  });

  it('draws the progress line', () => {
    expect(progressLine(5, 3, 10)).toBe('[##########          ] 5/10 done, 3 running');
    expect(progressLine(0, 0, 0)).toBe('[####################] 0/0 done, 0 running');
  });
});

describe('summary', () => {
  it("prints Salt's counts, and the lists with -v", () => {
    const text = summaryText(
      { a: true, b: false, c: 'Minion did not return.' },
      new Set(['b']),
      [{ id: 'c', reason: 'Not connected' }],
      true,
    );
    expect(text).toBe(
      '\n\n-------------------------------------------\nSummary\n-------------------------------------------\n' +
        '# of minions targeted: 3\n# of minions returned: 2\n# of minions that did not return: 1\n# of minions with errors: 1\n' +
        'Minions not connected: c\nMinions with failures: b\n-------------------------------------------\n',
    );
  });
});
