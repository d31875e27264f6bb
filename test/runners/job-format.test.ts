import { describe, expect, it } from 'vitest';
import { parseRunnerTime } from '../../src/runners/job-format';
import { jidToTime } from '../../src/core/protocol/jid';

describe('jid_to_time', () => {
  it('formats as Salt does, including suffixed jids, and gives "" for other text', () => {
    expect(jidToTime('20021225120000000000')).toBe('2002, Dec 25 12:00:00.000000');
    expect(jidToTime('20261202131309576618_4242')).toBe('2026, Dec 02 13:13:09.576618');
    expect(jidToTime('req')).toBe('');
    expect(jidToTime('2026120213130957661')).toBe('');
    expect(jidToTime('20261302131309576618')).toBe('');
  });
});

describe('runner times', () => {
  it('reads StartTime, ISO and jid forms as UTC unless a zone is given', () => {
    expect(parseRunnerTime('t', '2015, Mar 16 19:00').toISOString()).toBe('2015-03-16T19:00:00.000Z');
    expect(parseRunnerTime('t', '2026, Dec 02 13:13:09.576618').toISOString()).toBe('2026-12-02T13:13:09.576Z');
    expect(parseRunnerTime('t', '2026-12-02').toISOString()).toBe('2026-12-02T00:00:00.000Z');
    expect(parseRunnerTime('t', '2026-12-02T13:13:09.5-02:30').toISOString()).toBe('2026-12-02T15:43:09.500Z');
    expect(parseRunnerTime('t', '20261202131309576618').toISOString()).toBe('2026-12-02T13:13:09.576Z');
  });

  it('refuses anything else with BAD_RUNNER_ARG', () => {
    for (const v of ['', 'soon', '2026-13-01', '2026-12-02 25:00', 42, null, new Date(NaN)]) {
      expect(() => parseRunnerTime('start_time', v)).toThrow(expect.objectContaining({ code: 'BAD_RUNNER_ARG' }));
    }
  });
});
