import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RenderError, loadSaltYaml } from '../../../src/core/render';
import { isOrdered } from '../../../src/core/pycompat';

/** Produced by python3 + PyYAML's libyaml loader (what Salt uses): see the name of each row. */
const TABLE: { name: string; yaml: string; salt: string }[] = JSON.parse(readFileSync(join(__dirname, 'libyaml-errors.json'), 'utf8'));

describe('loadSaltYaml', () => {
  it('answers a text loaded before from its cache: an equal, separate copy with the OrderedDict marks', () => {
    const text = 'web:\n  file.managed:\n    - name: /x\n    - mode: 0644\n';
    const first = loadSaltYaml(text) as Record<string, Record<string, unknown[]>>;
    first.web['file.managed'].push({ order: 10000 });
    const second = loadSaltYaml(text) as Record<string, Record<string, unknown[]>>;
    expect(second).toEqual({ web: { 'file.managed': [{ name: '/x' }, { mode: 644 }] } });
    expect(isOrdered(second) && isOrdered(second.web)).toBe(true);
    // A text that fails is never cached: it fails again with the same error.
    for (let i = 0; i < 2; i++) expect(() => loadSaltYaml('a: 1\na: 2\n')).toThrow(/found conflicting ID 'a'/);
  });

  it('reads YAML 1.1 scalars as Salt does (0644 is decimal, timestamps stay text)', () => {
    expect(loadSaltYaml('a: 0644\nb: yes\nc: off\nd: 2024-01-01\ne: 0x1f\nf: ~\ng: 1_000\nh: "0644"\n')).toEqual({
      a: 644,
      b: true,
      c: false,
      d: '2024-01-01',
      e: 31,
      f: null,
      g: 1000,
      h: '0644',
    });
  });

  it('keeps key order and merges <<', () => {
    const v = loadSaltYaml('base: &b {x: 1, y: 2}\nz: 1\nm:\n  <<: *b\n  y: 3\n') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['base', 'z', 'm']);
    expect(v.m).toEqual({ x: 1, y: 3 });
  });

  it('an empty document is null', () => {
    expect(loadSaltYaml('')).toBeNull();
    expect(loadSaltYaml('# only a comment\n')).toBeNull();
  });

  it.each(TABLE.map((row) => [row.name, row] as const))('%s: the error text Salt shows', (_name, row) => {
    let err: unknown;
    try {
      loadSaltYaml(row.yaml);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RenderError);
    expect((err as RenderError).message).toBe(row.salt);
  });
});
