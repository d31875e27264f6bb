import { describe, expect, it } from 'vitest';
import { keyEvents } from '../../../src/core/master/events';

const listing = (accepted: string[], pending: string[] = [], rejected: string[] = [], denied: string[] = []) => ({
  accepted,
  pending,
  rejected,
  denied,
});

describe('keyEvents', () => {
  it('reports accepted, rejected and deleted keys, not new pending ones', () => {
    expect(keyEvents(listing(['a', 'b'], ['c', 'd']), listing(['a', 'c'], ['e'], ['d']))).toEqual([
      { id: 'c', act: 'accept', result: true },
      { id: 'd', act: 'reject', result: true },
      { id: 'b', act: 'delete', result: true },
    ]);
    expect(keyEvents(listing(['a']), listing(['a']))).toEqual([]);
  });
});
