import { describe, expect, it } from 'vitest';
import { eventArgs, eventLine } from '../../../src/cli/runners/state-event';
import { exprMatch } from '../../../src/core/pycompat';
import { foldRunning } from '../../../src/runners/jobs-active';

describe('state.event', () => {
  it("matches tags as Salt's expr_match: exact, glob, regex", () => {
    expect(exprMatch('salt/job/1/new', 'salt/job/*')).toBe(true);
    expect(exprMatch('salt/key', 'salt/key')).toBe(true);
    expect(exprMatch('salt/job/1/ret/web1', 'salt/job/\\d+/ret/web.')).toBe(true);
    expect(exprMatch('salt/auth', 'salt/job/*')).toBe(false);
    expect(exprMatch('salt/auth', '(')).toBe(false);
  });

  it('prints tag<TAB>json on one line, or indented by 4 with sorted keys when pretty', () => {
    expect(eventLine('salt/key', { id: 'w', act: 'delete', result: true }, false)).toBe(
      'salt/key\t{"id": "w", "act": "delete", "result": true}',
    );
    expect(eventLine('salt/key', { id: 'w', act: 'delete' }, true)).toBe('salt/key\t{\n    "act": "delete",\n    "id": "w"\n}');
  });

  it('binds tagmatch, count and pretty like the runner signature, and refuses the rest', () => {
    expect(eventArgs(['salt/*', { __kwarg__: true, count: 2, pretty: 'True' }])).toEqual({
      tagmatch: 'salt/*',
      count: 2,
      quiet: false,
      pretty: true,
      sockDir: undefined,
    });
    expect(eventArgs([])).toMatchObject({ tagmatch: '*', count: -1 });
    expect(() => eventArgs([{ __kwarg__: true, bogus: 1 }])).toThrow(expect.objectContaining({ code: 'BAD_RUNNER_ARG' }));
    expect(() => eventArgs([{ __kwarg__: true, count: 'many' }])).toThrow(expect.objectContaining({ code: 'BAD_RUNNER_ARG' }));
  });
});

describe('jobs.active', () => {
  it("folds saltutil.running answers into Salt's shape, skipping minions that did not answer a list", () => {
    const job = { jid: '20261202131309576618', fun: 'test.sleep', arg: [3], tgt: '*', tgt_type: 'glob', user: 'root', pid: 11 };
    const out = foldRunning({ a: [job], b: [{ ...job, pid: 12 }], c: 'error text' });
    expect(out).toEqual({
      '20261202131309576618': {
        Function: 'test.sleep',
        Arguments: [3],
        Target: '*',
        'Target-type': 'glob',
        User: 'root',
        StartTime: '2026, Dec 02 13:13:09.576618',
        Running: [{ a: 11 }, { b: 12 }],
        Returned: [],
      },
    });
  });
});
