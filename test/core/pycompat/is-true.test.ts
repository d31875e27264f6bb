import { describe, expect, it } from 'vitest';
import { isTrue } from '../../../src/core/pycompat/is-true';

// Produced by Salt 3007's salt.utils.data.is_true under python3 (value, result).
const PYTHON: [unknown, boolean][] = JSON.parse(
  '[[true, true], [false, false], [null, false], [0, false], [1, true], [-1, false], [2.5, true], [0.0, false], [-0.5, false], ["True", true], ["true", true], ["TRUE", true], ["False", false], ["false", false], ["yes", false], ["no", false], ["on", false], ["1", true], ["0", false], [" 1 ", true], ["-3", false], ["2.5", true], ["0.0", false], ["1e3", true], ["1_000", true], ["inf", true], ["-inf", false], ["nan", false], ["Infinity", true], ["", false], [" ", false], ["abc", false], [[], false], [[0], true], [{}, false], [{"a": 1}, true]]',
);

describe('isTrue (salt.utils.data.is_true)', () => {
  it.each(PYTHON)('is_true(%j) is %s', (value, expected) => {
    expect(isTrue(value)).toBe(expected);
  });
  it('reads bytes and undefined as Python reads bytes and None', () => {
    expect(isTrue(Buffer.from('x'))).toBe(true);
    expect(isTrue(Buffer.alloc(0))).toBe(false);
    expect(isTrue(undefined)).toBe(false);
  });
});
