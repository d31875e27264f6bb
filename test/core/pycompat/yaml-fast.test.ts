import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOrdered, loadYaml, loadYamlWithLines } from '../../../src/core/pycompat';
import { loadSimpleYaml } from '../../../src/core/pycompat/yaml-fast';
import { parseSaltYaml } from '../../../src/core/render/yaml-loader';

/** Data with what toEqual does not see: key order, OrderedDict marks, number kinds. */
function canon(v: unknown): unknown {
  if (Array.isArray(v)) return ['list', ...v.map(canon)];
  if (typeof v === 'bigint') return ['bigint', v.toString()];
  if (typeof v === 'number') return ['number', Object.is(v, -0) ? '-0' : String(v)];
  if (v !== null && typeof v === 'object')
    return [isOrdered(v) ? 'odict' : 'dict', ...Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, canon(x)])];
  return v;
}

/** The full loader's answer: its data, or the error it throws. */
function full(text: string): { value?: unknown; error?: string } {
  try {
    return { value: canon(parseSaltYaml(text)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The fast path either declines (undefined) or gives exactly the full loader's data. */
function agrees(text: string): boolean {
  const fast = loadSimpleYaml(text);
  if (fast === undefined) return false;
  expect({ text, ...full(text) }).toEqual({ text, value: canon(fast) });
  return true;
}

const SLS = `# managed by salt
/etc/app/f1.conf:
  file.managed:
    - makedirs: True
    - contents: "file 1 of web01"
    - mode: 0644
/etc/app/f2.conf:
  file.managed:
    - source: salt://fleet/app.conf.j2
    - template: jinja
    - context:
        n: 3
        port: 8003   # a comment
        name: 'it''s'
    - require:
      - pkg: nginx
nginx:
  pkg.installed: []
  service.running:
    - enable: yes
    - watch:
      - file: /etc/app/f1.conf
motd:
  file.managed:
    - name: /etc/motd
    - contents: |
        Welcome
        # not a comment

        to web01
    - contents_newline: False
    - other: |-
        stripped
`;

describe('loadSimpleYaml', () => {
  it('reads the block YAML of rendered SLS files as the full loader does', () => {
    expect(agrees(SLS)).toBe(true);
    expect(agrees('a:\n- 1\n- two\n-\n- - no\n')).toBe(false); // a nested compact sequence: the full loader's
    for (const text of [
      'a: 1\nb:\n- x\n- y\nc: ~\n',
      'k:\n  - name: a\n    value: 1\n  -   name: b\n      value: 2\n  -\n    deep: true\n',
      'True: 1\nnull: 2\n0644: 3\n1.5: 4\n"quoted key": 5\n\'single\': 6\n__proto__: 7\n10: a\n2: b\n',
      'a: yes\nb: Off\nc: 0x1f\nd: 1_000\ne: 2024-01-01\nf: .inf\ng: -.5\nh: 12345678901234567890\ni: -0\n',
      'url: http://example.com:8080/x\npath: C:\\dir\nwin C:\\x: 1\nhash: a#b\nempty:\nq: ""\n',
      'cmd: --force --yes\nneg: -1\nlist:\n  - --opt\n  - -x y\n',
      'a: |\n  one\n\n  two\n\n\nb: 1\n',
      'a: |\n\n  after blank\nb: |-\n  x\n  y\nc: |\nd: 1\n',
      '- a\n- b: 1\n  c: 2\n- |\n  text\n- last\n',
      'a: []\nb: {}  # empty\nc:\n  - []\n',
    ])
      expect(agrees(text)).toBe(true);
  });

  it('declines what needs the full loader: flow, anchors, tags, folded and continued scalars, escapes, tabs, duplicates, bad indentation', () => {
    for (const text of [
      'a: [1, 2]\n',
      'a: {b: 1}\n',
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: >\n  folded\n',
      'a: |+\n  kept\n',
      'a: |2\n    x\n',
      'a: plain\n  continued\n',
      'a: "multi\n  line"\n',
      'a: "esc\\n"\n',
      'a:\tb\n',
      'a: 1\r\nb: 2\r\n',
      'a: 1\na: 2\n',
      'a:\n    b: 1\n  c: 2\n',
      'a: b: c\n',
      '---\na: 1\n',
      '  a: 1\n',
      'just a scalar\n',
      '',
      '<<: {a: 1}\n',
      '? complex\n: key\n',
      'a: 1\n- b\n',
      'a: |\n  x\n y\n',
    ])
      expect(loadSimpleYaml(text)).toBeUndefined();
  });

  it('never gives data for a text the full loader refuses, nor other data than it gives (corpus SLS files and variations)', () => {
    const texts: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(sls|yaml)$/.test(name)) texts.push(readFileSync(p, 'utf8'));
      }
    };
    walk(join(__dirname, '../../../../shared/salt-states/cases'));
    expect(texts.length).toBeGreaterThan(50);
    // Without their Jinja lines and with expressions replaced, most are plain YAML.
    const variants = texts.flatMap((t) => [
      t,
      t
        .split('\n')
        .filter((l) => !l.includes('{%'))
        .join('\n')
        .replace(/\{\{[^}]*\}\}/g, 'x'),
    ]);
    let taken = 0;
    for (const text of variants) {
      const fast = loadSimpleYaml(text);
      if (fast === undefined) continue;
      taken++;
      expect({ text, ...full(text) }).toEqual({ text, value: canon(fast) });
    }
    expect(taken).toBeGreaterThan(50);
  });

  it('agrees with the full loader on generated texts with the characters that matter to YAML', () => {
    // A fixed linear congruential generator: the same texts on every run.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const atoms = [
      '[]',
      '{}',
      'a',
      'b',
      'key',
      '1',
      '0644',
      'yes',
      '~',
      '-',
      '- ',
      ': ',
      ':',
      ' #c',
      '#',
      '"',
      "'",
      '|',
      '|-',
      ' ',
      '  ',
      '\n',
      '\n  ',
      '\n    ',
      '\n- ',
      '\n  - ',
      'x y',
      'http://h:1',
    ];
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const n = 3 + rand(25);
      for (let j = 0; j < n; j++) text += atoms[rand(atoms.length)];
      text += '\n';
      const fast = loadSimpleYaml(text);
      if (fast === undefined) continue;
      taken++;
      expect({ text, ...full(text) }).toEqual({ text, value: canon(fast) });
    }
    expect(taken).toBeGreaterThan(100);
  });
});

describe('loadYamlWithLines (config files) through the fast path', () => {
  const configs = [
    'id: web1\nmaster: 127.0.0.1\n',
    '# a comment\nroot_dir: /srv/x\nfile_roots:\n  base:\n    - /srv/salt\n    - /srv/formulas\nlog_level: warning  # trailing\n',
    'grains:\n  roles:\n  - web\n  - db\n  port: 0644\nmine_enabled: no\ntimeout: 5\nextra: ~\n',
    "pillar_roots:\n  base: []\nopts: {}\n\"quoted key\": 'it''s'\n",
    'banner: |\n  line one\n  line two\nafter: 1\n',
  ];
  it.each(configs)('gives the full loader data and the line of each top-level key: %j', (text) => {
    const { value, keyLines } = loadYamlWithLines(text);
    // Plain dicts (not OrderedDicts) with the same numbers, as the full loader gives.
    expect(canon(value)).toEqual(canon(loadYaml(text)));
    const lines = text.split('\n');
    for (const [key, line] of keyLines) expect(lines[line - 1].startsWith(key) || lines[line - 1].startsWith(`"${key}"`)).toBe(true);
    expect([...keyLines.keys()]).toEqual(Object.keys(value as object));
  });

  it('answers null for a file of comments and blank lines, and leaves the rest to the full loader', () => {
    expect(loadYamlWithLines('# nothing\n\n   # here\n')).toEqual({ value: null, keyLines: new Map() });
    expect(loadYamlWithLines('')).toEqual({ value: null, keyLines: new Map() });
    // Flow style and duplicates: the full loader's answers (and its errors).
    expect(loadYamlWithLines('file_roots: {base: [/srv/salt]}\n')).toEqual({
      value: { file_roots: { base: ['/srv/salt'] } },
      keyLines: new Map([['file_roots', 1]]),
    });
    expect(() => loadYamlWithLines('a: 1\na: 2\n', 'minion')).toThrow(/minion/);
    expect(() => loadYamlWithLines('a: =\n', 'minion')).toThrow(/value/);
    expect(() => loadYamlWithLines('=: 1\n', 'minion')).toThrow(/value/);
  });
});
