/**
 * Jinja statements nunjucks lacks (jinja-statements.ts, jinja-tuples.ts): `with`, `break`/`continue`, loop
 * filters, slices, loop.cycle/previtem/nextitem and the constants True/False/None. The expected
 * outputs were printed by Jinja2 configured as Salt configures it (StrictUndefined, jinja2.ext.do,
 * jinja2.ext.loopcontrols).
 */
import { describe, expect, it } from 'vitest';
import { RenderError, renderFile } from '../../../src/core/render';

const JINJA2: [string, string][] = [
  ['{{ True }} {{ False }} {{ None }} {{ true }} {{ none }} {{ 1 if True else 2 }}', 'True False None True None 1'],
  [
    "{{ [1, 2, 3][1:] }}|{{ 'abcdef'[::-1] }}|{{ 'a b c'.split()[1:] }}|{{ [1, 2, 3][-1] }}|{{ 'abc'[:2] }}|{{ [1, 2, 3, 4, 5][1:-1:2] }}|{{ 'web01'[-2:] }}",
    "[2, 3]|fedcba|['b', 'c']|3|ab|[2, 4]|01",
  ],
  ["{% for i in [1, 2, 3, 4] if i > 2 %}{{ i }}:{{ loop.index }}/{{ loop.length }}{{ ',' if not loop.last }}{% endfor %}", '3:1/2,4:2/2'],
  ["{% for k, v in {'a': 1, 'b': 2, 'c': 3}.items() if v != 2 %}{{ k }}={{ v }};{% endfor %}", 'a=1;c=3;'],
  ['{% for i in [] if i %}x{% else %}empty{% endfor %}', 'empty'],
  ['{% set i = 9 %}{% for i in [1, 2, 3] if i != 2 %}{{ i }}{% endfor %}{{ i }}', '139'],
  ['{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}', '3'],
  ['{% set x = 5 %}{% with %}{% set x = 7 %}{% set y = 1 %}{{ x }}{% endwith %}{{ x }}{{ y is defined }}', '75False'],
  ["{% with x = 'outer' %}{% with x = x ~ '-inner' %}{{ x }}{% endwith %}{{ x }}{% endwith %}", 'outer-innerouter'],
  ['{% for i in [1, 2, 3, 4] %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}', '12'],
  ['{% for i in [1, 2, 3, 4] %}{% if i is even %}{% continue %}{% endif %}{{ i }}{% endfor %}', '13'],
  ['{% for row in [[1, 2], [3, 4]] %}{% for c in row %}{% if c == 2 %}{% break %}{% endif %}{{ c }}{% endfor %};{% endfor %}', '1;34;'],
  ["{% for i in [1, 2, 3] %}{{ loop.cycle('odd', 'even') }} {% endfor %}", 'odd even odd '],
  [
    "{% for i in ['a', 'b', 'c'] %}{% if not loop.first %}{{ loop.previtem }}<{% endif %}{{ i }}{% if not loop.last %}>{{ loop.nextitem }} {% endif %}{% endfor %}",
    'a>b a<b>c b<c',
  ],
  [
    "{% set ns = namespace(found=False) %}{% for u in ['a', 'b'] %}{% if u == 'b' %}{% set ns.found = True %}{% break %}{% endif %}{% endfor %}{{ ns.found }}",
    'True',
  ],
];

/** Tuples, unpacking, recursive loops, loop.changed, nested dicts in tags (jinja-tuples.ts). */
const TUPLES_AND_LOOPS: [string, string][] = [
  [
    "{% set t = (1, 2, 3) %}{{ t }} {{ t[0] }} {{ t | length }} {{ (1,) }} {{ () }} {{ ('a', ('b', 'c')) }}",
    "(1, 2, 3) 1 3 (1,) () ('a', ('b', 'c'))",
  ],
  [
    "{% set a, b = 1, 2 %}{{ a }}-{{ b }} {% set c, d = [3, 4] %}{{ c }}-{{ d }} {% set x = 1, 2 %}{{ x }} {% set e, f, g = 'xyz' %}{{ g }}{{ f }}{{ e }}",
    '1-2 3-4 (1, 2) zyx',
  ],
  [
    "{% for a, b in [(1, 2), (3, 4)] %}{{ a }}{{ b }};{% endfor %} {{ (1, 2) + (3,) }} {{ '%s=%s' % ('a', 1) }} {{ '%s' % [1, 2] }}",
    '12;34; (1, 2, 3) a=1 [1, 2]',
  ],
  [
    "{{ {'alice': {'uid': 1}, 'bob': 2}.items() | list }} {{ {'b': 1, 'a': 2} | dictsort }} {{ 'x=1'.partition('=') }}",
    "[('alice', {'uid': 1}), ('bob', 2)] [('a', 2), ('b', 1)] ('x', '=', '1')",
  ],
  [
    "{% for item in [{'n': 1, 'c': [{'n': 2, 'c': [{'n': 3, 'c': []}]}, {'n': 4, 'c': []}]}, {'n': 5, 'c': []}] recursive %}{{ loop.index }}.{{ item.n }}/{{ loop.depth0 }}{% if item.c %}<{{ loop(item.c) }}>{% endif %}{{ loop.length }} {% endfor %}",
    '1.1/0<1.2/1<1.3/21 >2 2.4/12 >2 2.5/02 ',
  ],
  [
    '{% for x in [3, 1, 2] if x > 1 recursive %}{{ x }}@{{ loop.depth }}{% if x == 3 %}[{{ loop([5, 0]) }}]{% endif %}{% endfor %}',
    '3@1[5@2]2@1',
  ],
  ["{% for k, v in {'a': {'b': {}}}.items() recursive %}{{ k }}({{ loop(v.items()) }}){% endfor %}", 'a(b())'],
  ['{% for x in [1, 2] %}{% for y in [1, 1, 2, 1] %}{% if loop.changed(y) %}{{ y }}{% endif %}{% endfor %};{% endfor %}', '121;121;'],
  [
    "{% set d = {'a': {'b': {'c': 1}}} %}{{ d.a.b.c }} {{ {'a': {'b': 1}} }} {% set k = 'key' %}{{ {k: 1} }}",
    "1 {'a': {'b': 1}} {'key': 1}",
  ],
  ["{{ 'a' * 3 }} {{ [0] * 3 }} {{ 2 * 3 }} {{ 3 > 2 > 1 }} {{ 1 < 2 < 1 }}", 'aaa [0, 0, 0] 6 True False'],
  ['{% set ns = namespace(l=()) %}{% set ns.l = ns.l + (1,) %}{{ ns.l }}', '(1,)'],
];

async function render(text: string): Promise<string> {
  return (await renderFile({ text, sls: '', defaultPipe: 'jinja', roots: [], context: { grains: {}, pillar: {}, opts: {} } })) as string;
}

async function failure(text: string): Promise<RenderError> {
  try {
    await render(text);
  } catch (err) {
    if (err instanceof RenderError) return err;
    throw err;
  }
  throw new Error(`rendered without error: ${text}`);
}

describe('Jinja statements as Jinja2 renders them', () => {
  it.each(JINJA2)('%s', async (text, expected) => {
    expect(await render(text)).toBe(expected);
  });

  it.each(TUPLES_AND_LOOPS)('%s', async (text, expected) => {
    expect(await render(text)).toBe(expected);
  });

  it('unpacks only as many values as names, as Python does', async () => {
    expect((await failure('{% set a, b = (1, 2, 3) %}')).message).toContain('too many values to unpack (expected 2)');
    expect((await failure('{% set a, b = [1] %}')).message).toContain('not enough values to unpack (expected 2, got 1)');
  });

  it('refuses break and continue outside a loop, and inside a macro of a loop', async () => {
    expect((await failure('{% break %}')).message).toContain("'break' can only be used inside a for loop");
    expect((await failure('{% for i in [1] %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}')).message).toContain(
      "'continue' can only be used inside a for loop",
    );
  });

  it("answers a bad slice with Python's error and the line", async () => {
    const err = await failure('x\n{{ 5[1:] }}');
    expect(err.message).toContain("'int' object is not subscriptable");
    expect(err.line).toBe(2);
    expect((await failure('{{ [1, 2][::0] }}')).message).toContain('slice step cannot be zero');
  });
});
