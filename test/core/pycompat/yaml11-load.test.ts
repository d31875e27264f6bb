import { describe, expect, it } from 'vitest';
import { loadYaml, loadYamlWithLines } from '../../../src/core/pycompat';

// Expected values are what PyYAML 6 with SaltYamlSafeLoader's rules loads.
describe('loadYaml', () => {
  it.each([
    ['a: yes', { a: true }],
    ['a: Off', { a: false }],
    ['a: 1e5', { a: '1e5' }],
    ['a: 1.5e+3', { a: 1500 }],
    ['a: 0777', { a: 777 }],
    ['a: 0o17', { a: '0o17' }],
    ['a: 1:30', { a: 90 }],
    ['a: ~', { a: null }],
    ['a:', { a: null }],
    ["a: 'yes'", { a: 'yes' }],
    ['a: 2024-01-02', { a: '2024-01-02' }],
    ['a: 12345678901234567890', { a: 12345678901234567890n }],
    ['a: !!str 12', { a: '12' }],
    ['base: &b {x: 1}\nother:\n  <<: *b\n  y: 2', { base: { x: 1 }, other: { x: 1, y: 2 } }],
    ['', null],
  ])('%j', (text, expected) => {
    expect(loadYaml(text)).toEqual(expected);
  });

  it('refuses duplicate keys, several documents, unknown tags and bad syntax with the line', () => {
    expect(() => loadYaml('a: 1\na: 2', 'f')).toThrow(
      expect.objectContaining({ code: 'BAD_YAML', message: expect.stringContaining('f (line 2)') }),
    );
    expect(() => loadYaml('a\n---\nb', 'f')).toThrow(expect.objectContaining({ code: 'BAD_YAML' }));
    expect(() => loadYaml('a: !!python/object x', 'f')).toThrow(
      expect.objectContaining({ code: 'BAD_YAML', message: expect.stringContaining('line 1') }),
    );
    expect(() => loadYaml('a: [1, 2', 'f')).toThrow(expect.objectContaining({ code: 'BAD_YAML' }));
    expect(() => loadYaml('a: *nowhere', 'f')).toThrow(expect.objectContaining({ code: 'BAD_YAML' }));
  });

  it('gives top-level key lines', () => {
    expect([...loadYamlWithLines('# c\na: 1\n\nb:\n  c: 2\n').keyLines]).toEqual([
      ['a', 2],
      ['b', 4],
    ]);
  });
});
