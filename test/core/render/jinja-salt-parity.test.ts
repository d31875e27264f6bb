/**
 * brine's Jinja against Salt 3007's: every row was rendered by Salt's own Jinja environment
 * (salt.utils.jinja filters and tests on Jinja2 with StrictUndefined, jinja2.ext.do and
 * loopcontrols; the groupby row by Jinja2 3.1.6, as Salt 3007's Jinja 3.1.2 fails on
 * `case_sensitive`), and brine must print the same text: Python numbers (`1.0`, `1e-05`, `4 / 2`),
 * tests without parentheses, nested for-unpacking, macro varargs/kwargs and caller, Jinja's
 * built-in filters and tests, Salt's filters, and the Python methods templates call on values.
 */
import { describe, expect, it } from 'vitest';
import { RenderError, renderFile } from '../../../src/core/render';

const SALT_JINJA: [string, string][] = [
  [
    '{{ 9 is divisibleby 3 }} {{ none is sameas none }} {{ 4 is divisibleby(3) }} {{ 3 is not divisibleby 2 }} {{ x is defined and 1 is odd }} {{ 1 if 2 is even else 3 }}',
    'True True False True False 1',
  ],
  [
    "{% for k, (a, b) in {'x': (1, 2), 'y': [3, 4]}.items() %}{{ k }}{{ a }}{{ b }};{% endfor %}{% for (a, (b, c)) in [(1, (2, 3))] %}{{ a }}{{ b }}{{ c }}{% endfor %}{% for x, y in [[1,2]] %}{{ x }}{{ y }}{% endfor %}",
    'x12;y34;12312',
  ],
  ['{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, x=4) }}|{{ m(1) }}', "1(2, 3){'x': 4}|1(){}"],
  [
    '{% macro m(a, b=2) %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 5, 3, x=4) }}|{{ m(1, b=7, c=1) }}',
    "15(3,){'x': 4}|17(){'c': 1}",
  ],
  [
    '{% macro m() %}[{{ caller() }}]{% endmacro %}{% call m() %}inner{% endcall %}|{% macro n(x) %}[{{ caller(x * 2) }}]{% endmacro %}{% call(v) n(5) %}got {{ v }}{% endcall %}',
    '[inner]|[got 10]',
  ],
  [
    '{{ 1.0 }}|{{ 0.1 }}|{{ 0.00001 }}|{{ 2.5e20 }}|{{ [1.0, 2.5] }}|{{ 10 / 4 }}|{{ 4 / 2 }}|{{ 7 // 2 }}|{{ 2 ** 10 }}|{{ -7 // 2 }}|{{ 7 % 3 }}|{{ 2 ** -1 }}|{{ 7.0 // 2 }}',
    '1.0|0.1|1e-05|2.5e+20|[1.0, 2.5]|2.5|2.0|3|1024|-4|1|0.5|3.0',
  ],
  [
    "{{ 1e-5 }}|{{ 1e3 }}|{{ 1_000 }}|{{ 1.5e300 * 1e300 }}|{{ 'inf' | float }}|{{ '3' | float }}|{{ 3 | float }}|{{ 0.1 + 0.2 }}|{{ 0x1f }}|{{ 0o17 }}|{{ 0b101 }}|{{ -1.0 }}|{{ -(2) }}",
    '1e-05|1000.0|1000|inf|inf|3.0|3.0|0.30000000000000004|31|15|5|-1.0|-2',
  ],
  [
    "{{ 2.567 | round(1) }}|{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 2.1 | round(0, 'ceil') }}|{{ 2.9 | round(0, 'floor') }}|{{ 42 | round }}|{{ 1.25 | round(1) }}|{{ 1.35 | round(1, 'floor') }}|{{ 12345 | round(-2) }}|{{ 2.675 | round(2) }}|{{ -2.5 | round }}|{{ 0.125 | round(2) }}",
    '2.6|2.0|4.0|3.0|2.0|42|1.2|1.3|12300|2.67|-2.0|0.12',
  ],
  [
    "{{ 'hello world foo bar' | truncate(9) }}|{{ 'hello world foo bar' | truncate(11, True) }}|{{ 'hello world foo bar' | truncate(9, False, '..') }}|{{ 'hello world' | truncate(12) }}|{{ 'hello world foo bar' | truncate(16) }}|{{ 'hello world foo bar baz' | truncate(length=10, leeway=0) }}",
    'hello...|hello wo...|hello..|hello world|hello world foo bar|hello...',
  ],
  [
    "{{ [1,2]|sum }}|{{ [1.5, 2]|sum }}|{{ 3|string }}|{{ 3.0|int }}|{{ '3.7'|int }}|{{ '0x1A'|int(0, 16) }}|{{ '0b11'|int(base=2) }}",
    '3|3.5|3|3|3|26|3',
  ],
  [
    "{{ -3 | abs }}|{{ -3.0 | abs }}|{{ [1,2,3,4,5] | batch(2) | list }}|{{ [1,2,3] | batch(2, 'x') | list }}|{{ 'hello WORLD' | capitalize }}|{{ 'ab' | center(6) }}|{{ 'abc' | center(8) }}",
    "3|3.0|[[1, 2], [3, 4], [5]]|[[1, 2], [3, 'x']]|Hello world|  ab  |  abc   ",
  ],
  [
    "{{ '<a&\"' | e }}|{{ '<b>' | escape }}|{{ 1000 | filesizeformat }}|{{ 123456789 | filesizeformat(true) }}|{{ 1 | filesizeformat }}|{{ 10 | filesizeformat }}|{{ [3,1] | first }}|{{ '3.5x' | float }}|{{ '3.5x' | float(1.5) }}|{{ '%s-%s' | format(1, 'a') }}",
    '&lt;a&amp;&#34;|&lt;b&gt;|1.0 kB|117.7 MiB|1 Byte|10 Bytes|3|0.0|1.5|1-a',
  ],
  [
    '{{ "a\\nb" | indent(2) }}|{{ "a\\nb\\n\\nc" | indent(2, true) }}|{{ "a\\nb\\n\\nc" | indent(2, blank=true) }}|{{ "a\\nb" | indent(first=True) }}|{{ "a\\nb\\n" | indent }}',
    'a\n  b|  a\n  b\n\n  c|a\n  b\n  \n  c|    a\n    b|a\n    b\n',
  ],
  [
    "{{ '42' | int }}|{{ '4.9' | int }}|{{ 'x' | int(7) }}|{{ 4.9 | int }}|{{ True | int }}|{{ ' 12 ' | int }}|{{ '1_000' | int }}|{{ '0x1A'|int(0, 16) }}|{{ '0b11'|int(base=2) }}|{{ '0o17'|int(0, 0) }}|{{ 'ff'|int(base=16) }}",
    '42|4|7|4|1|12|1000|26|3|15|255',
  ],
  [
    "{{ {'a':1,'b':2} | items | list }}|{{ [1,2,3] | join('-') }}|{{ [{'n':'a'},{'n':'b'}] | join(',', attribute='n') }}|{{ 'abc' | last }}|{{ 'abc' | length }}|{{ {'a':1} | list }}|{{ 'ab' | list }}",
    "[('a', 1), ('b', 2)]|1-2-3|a,b|c|3|['a']|['a', 'b']",
  ],
  [
    "{{ [3,1,2] | max }}|{{ [3,1,2] | min }}|{{ ['B','a'] | max }}|{{ {'a': [1, 'x']} | pprint }}|{{ [1,2,3] | reverse | list }}|{{ 'abc' | reverse }}|{{ 'Hello World' | replace('o', '0', 1) }}",
    "3|1|a|{'a': [1, 'x']}|[3, 2, 1]|cba|Hell0 World",
  ],
  [
    "{{ [1,2,3] | sum }}|{{ [{'v':1},{'v':2}] | sum(attribute='v') }}|{{ [1,2] | sum(start=10) }}|{{ \"hello world's-x\" | title }}|{{ {'a':'<'} | tojson }}|{{ '  x  ' | trim }}|{{ '--x--' | trim('-') }}|{{ [1.5, 1] | sum }}",
    '6|3|13|Hello World\'s-X|{"a": "\\u003c"}|x|x|2.5',
  ],
  [
    "{{ ['a','A','b'] | unique | list }}|{{ 'a b&c' | urlencode }}|{{ {'a': 'b c', 'd': 1} | urlencode }}|{{ 'one two three' | wordcount }}|{{ {'class': 'x', 'id': 'y', 'n': none} | xmlattr }}|{{ {'a': '<'} | xmlattr(false) }}",
    '[\'a\', \'A\', \'b\']|a%20b%26c|a=b+c&d=1|3| class="x" id="y"|a="&lt;"',
  ],
  [
    "{{ [{'a':1},{'b':2}] | map(attribute='a', default=0) | list }}|{{ ['1','2'] | map('int') | list }}|{{ [1,2,3] | select('odd') | list }}|{{ [1,2,3] | reject('odd') | list }}|{{ [{'a':1},{'a':0}] | selectattr('a') | list }}|{{ [{'a':1},{'a':0}] | rejectattr('a', 'equalto', 1) | list }}",
    "[1, 0]|[1, 2]|[1, 3]|[2]|[{'a': 1}]|[{'a': 0}]",
  ],
  [
    "{{ {'b':1,'A':2} | dictsort }}|{{ {'b':1,'a':2} | dictsort(by='value') }}|{{ {'b':1,'a':2} | dictsort(reverse=true) }}|{{ {'b':1,'A':2} | dictsort(true) }}|{{ [1,2,3,4,5] | slice(2) | list }}|{{ ['b','A','c'] | sort }}|{{ [{'a':2},{'a':1}] | sort(attribute='a') }}|{{ '<p>a  <b>b</b></p>' | striptags }}",
    "[('A', 2), ('b', 1)]|[('b', 1), ('a', 2)]|[('b', 1), ('a', 2)]|[('A', 2), ('b', 1)]|[[1, 2, 3], [4, 5]]|['A', 'b', 'c']|[{'a': 1}, {'a': 2}]|a b",
  ],
  [
    "{{ 'a'|attr('upper') is callable }}|{{ [1,2] | map('string') | join }}|{{ 'x' is string }}|{{ 1 is number }}|{{ 1.0 is float }}|{{ 1 is integer }}|{{ 1.0 is integer }}|{{ 3 is odd }}|{{ 'a' is lower }}|{{ 1 is sameas 1 }}|{{ 1.0 is number }}|{{ {'a':1}|attr('a') is defined }}",
    'True|12|True|True|True|True|False|True|True|True|True|False',
  ],
  [
    "{{ 1 is eq 1 }}|{{ 2 is ge 2 }}|{{ 2 is lt 1 }}|{{ 'upper' is filter }}|{{ 'odd' is test }}|{{ 'nope' is filter }}|{{ {} is mapping }}|{{ [] is sequence }}|{{ none is none }}|{{ 1 is in [1] }}|{{ 'a' is iterable }}",
    'True|True|False|True|True|False|True|True|True|True|True',
  ],
  [
    "{{ 1 is boolean }}|{{ true is true }}|{{ false is false }}|{{ x is undefined }}|{{ 1 is defined }}|{{ '<a>' is escaped }}|{{ 6 is divisibleby(3) }}|{{ 2 is greaterthan 1 }}|{{ 1 is lessthan 2 }}|{{ 1 is ne 2 }}|{{ 'A' is upper }}",
    'False|True|True|True|True|False|True|True|True|True|True',
  ],
  [
    "{{ [1, 2, 3] | select('>', 1) | list }}|{{ [1, 2, 3] | reject('==', 2) | list }}|{{ ['a', 'b'] | select('in', 'abc') | list }}|{{ [1,2,3] | select('lessthan', 3) | list }}|{{ 'abc' is match('a') }}|{{ 'abc' is match('B', ignorecase=True) }}",
    "[2, 3]|[1, 3]|['a', 'b']|[1, 2]|True|False",
  ],
  [
    "{{ 'aaa bbb ccc ddd' | wordwrap(7) }}|{{ 'aaaaaaaaaaaa bb' | wordwrap(5) }}|{{ 'aaaaaaaaaaaa bb' | wordwrap(5, false) }}|{{ 'a b c' | wordwrap(3, wrapstring='|') }}|{{ 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor' | wordwrap(20) }}|{{ 'well-known sub-system' | wordwrap(8) }}|{{ \"line one\\nline two is long\" | wordwrap(8) }}",
    'aaa bbb\nccc ddd|aaaaa\naaaaa\naa bb|aaaaaaaaaaaa\nbb|a b|c|Lorem ipsum dolor\nsit amet,\nconsectetur\nadipiscing elit, sed\ndo eiusmod tempor|well-\nknown\nsub-\nsystem|line one\nline two\nis long',
  ],
  [
    "{% for g in [{'a': 1, 'b': 2}, {'a': 1, 'b': 3}, {'a': 2, 'b': 4}] | groupby('a') %}{{ g.grouper }}:{{ g.list | length }}:{{ g }};{% endfor %}|{{ [{'a': 'x'},{'a':'X'}] | groupby('a') | list }}|{{ [{'a': 'x'},{'a':'X'}] | groupby('a', case_sensitive=true) | list }}",
    "1:2:(1, [{'a': 1, 'b': 2}, {'a': 1, 'b': 3}]);2:1:(2, [{'a': 2, 'b': 4}]);|[('x', [{'a': 'x'}, {'a': 'X'}])]|[('X', [{'a': 'X'}]), ('x', [{'a': 'x'}])]",
  ],
  [
    "{% for city, items in [{'c': 'b', 'n': 1}, {'c': 'a', 'n': 2}, {'c': 'b', 'n': 3}] | groupby('c') %}{{ city }}={{ items | map(attribute='n') | join(',') }};{% endfor %}",
    'a=2;b=1,3;',
  ],
  [
    "{{ 'x' | yaml_squote }}|{{ \"it's\" | yaml_dquote }}|{{ 'a.b*c d-e_f' | regex_escape }}|{{ [1,2] | zip([3,4]) | list }}|{{ [1,2,3] | zip_longest([4], fillvalue=0) | list }}|{{ {'a':1} | to_entries }}|{{ [{'key':'a','value':1}] | from_entries }}|{{ ['x'] | to_entries }}",
    "'x'|\"it's\"|a\\.b\\*c\\ d\\-e_f|[(1, 3), (2, 4)]|[(1, 4), (2, 0), (3, 0)]|[{'key': 'a', 'value': 1}]|{'a': 1}|[{'key': 0, 'value': 'x'}]",
  ],
  [
    "{{ {'a': {'b': [1, 2]}} | traverse('a:b:1') }}|{{ {'a': 1} | traverse('x', 'dflt') }}|{{ '10.0.0.1' | is_ip }}|{{ '::1' | is_ipv6 }}|{{ 'x' | is_ipv4 }}|{{ ['10.0.0.1', 'x', '::1'] | ipaddr }}|{{ ['10.0.0.1', 'x', '::1'] | ipv4 }}|{{ '::1' | ipwrap }}|{{ ['::1', 'a', '1.2.3.4'] | ipwrap }}|{{ '10.1.1.1/8' | is_ipv4 }}",
    "2|dflt|True|True|False|['10.0.0.1', '::1']|['10.0.0.1']|[::1]|['[::1]', 'a', '1.2.3.4']|True",
  ],
  [
    "{{ '192.168.0.0/30' | network_hosts }}|{{ '192.168.0.0/30' | network_size }}|{{ '10.0.0.5/24' | ipaddr }}|{{ '1K' | human_to_bytes }}|{{ '1 MB' | human_to_bytes }}|{{ '1 MB' | human_to_bytes(handle_metric=true) }}|{{ '2.5G' | human_to_bytes }}|{{ 'x' | human_to_bytes }}|{{ ['b','A','c'] | sorted_ignorecase }}",
    "['192.168.0.1', '192.168.0.2']|4|10.0.0.5/24|1024|1048576|1000000|2684354560|0|['A', 'b', 'c']",
  ],
  [
    "{{ ['10.0.0.5/24', '::1/64'] | ip_host }}|{{ '10.0.0.5' | ip_host }}|{{ ['10.0.0.0/31', '10.0.0.8/32'] | network_hosts }}|{{ 'fe80::/126' | network_hosts }}|{{ '10.0.0.0/255.255.255.0' | network_size }}|{{ 'x' | network_size }}",
    "['10.0.0.5/24', '::1/64']|10.0.0.5/32|[['10.0.0.0', '10.0.0.1'], ['10.0.0.8']]|['fe80::1', 'fe80::2', 'fe80::3']|256|None",
  ],
  [
    '{{ [1,2,3] | combinations(2) | list }}|{{ [1,2] | permutations | list }}|{{ [1,2] | product([3]) | list }}|{{ [1,2,3] | compress([1,0,1]) | list }}|{{ [1,2] | combinations_with_replacement(2) | list }}|{{ [1,2,3] | permutations(2) | list }}',
    '[(1, 2), (1, 3), (2, 3)]|[(1, 2), (2, 1)]|[(1, 3), (2, 3)]|[1, 3]|[(1, 1), (1, 2), (2, 2)]|[(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]',
  ],
  [
    "{{ [1,2] | compare_lists([2,3]) }}|{{ {'a':{'b':1}} | set_dict_key_value('a:c', 2) }}|{{ {'a':{'b':[1]}} | append_dict_key_value('a:b', 2) }}|{{ {'a':{'b':[1]}} | extend_dict_key_value('a:b', [2,3]) }}|{{ {'a':{'b':{'x':1}}} | update_dict_key_value('a:b', {'y':2}) }}|{{ {} | set_dict_key_value('x/y', 1, delimiter='/') }}",
    "{'new': [3], 'old': [1]}|{'a': {'b': 1, 'c': 2}}|{'a': {'b': [1, 2]}}|{'a': {'b': [1, 2, 3]}}|{'a': {'b': {'x': 1, 'y': 2}}}|{'x': {'y': 1}}",
  ],
  [
    "{{ {'a': 1, 'b': 'x'} | dict_to_sls_yaml_params }}|{{ 'abc' | to_bytes }}|{{ 'x' | method_call('upper') }}|{{ 'a,b' | method_call('split', ',') }}|{{ 'foo' | hmac('secret', 'ZHVtbXk=') }}|{{ 'foo' | hmac_compute('secret') }}|{{ 'example' | uuid }}|{{ 'x' | method_call('nope') }}",
    "- a: 1\n- b: x|b'abc'|X|['a', 'b']|False|773ba44693c7553d6ee20f61ea5d2757a9a4f4a44d2841ae4e95b52e4cd62db4|9ade8beb-355a-50d8-9011-1c99848a7719|None",
  ],
  [
    "{{ 'AA:BB:CC:DD:EE:FF' | mac_str_to_bytes }}|{{ 'a b' | quote }}|{{ [1,2,3] | skip }}|{{ 'a\\tb' | contains_whitespace }}|{{ 'root' | get_uid }}|{{ '/nonexist' | is_empty }}|{{ 9 | random_hash | length }}|{{ [1, 2, 3] | random_sample(2) | length }}|{{ [1, 2, 3] | random_shuffle | sort }}",
    "b'\\xaa\\xbb\\xcc\\xdd\\xee\\xff'|'a b'||True|0|False|32|2|[1, 2, 3]",
  ],
  [
    "{{ ['10.0.0.1', '192.168.1.1'] | filter_by_networks(['10.0.0.0/8']) }}|{{ {'eth0': ['10.0.0.1', '192.168.1.1']} | filter_by_networks(['192.168.0.0/16']) }}|{{ 'ab' | check_whitelist_blacklist(whitelist=['a*']) }}|{{ 'ab' | check_whitelist_blacklist(blacklist='ab') }}|{{ 'ab' | check_whitelist_blacklist() }}",
    "['10.0.0.1']|{'eth0': ['192.168.1.1']}|True|False|True",
  ],
  [
    "{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(None, 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}|{{ ' x '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ '-'.join(['a', 'b']) }}|{{ 'aaa'.replace('a', 'b', 2) }}",
    "['a', 'b', '', 'c']|['a', 'b']|['a', 'b c']|['a,b', 'c']|x|a|a-b|bba",
  ],
  [
    "{{ '{} is {}'.format('x', 1) }}|{{ '{name}:{0}'.format(5, name='n') }}|{{ '{:>5}|{:<4}|{:^6}'.format('a', 'b', 'c') }}|{{ '{:.2f}'.format(3.14159) }}|{{ '{:05d}'.format(42) }}|{{ '{0[a]}'.format({'a': 1}) }}",
    'x is 1|n:5|    a|b   |  c   |3.14|00042|1',
  ],
  [
    "{{ 'abc'.startswith('a') }}|{{ 'abc'.startswith(('x', 'a')) }}|{{ 'abc'.endswith('bc') }}|{{ 'aBc'.upper() }}|{{ 'aBc'.lower() }}|{{ 'hello world'.title() }}|{{ 'hELLO'.capitalize() }}|{{ '42'.zfill(5) }}|{{ '-42'.zfill(5) }}",
    'True|True|True|ABC|abc|Hello World|Hello|00042|-0042',
  ],
  [
    "{{ 'ab'.ljust(5, '.') }}|{{ 'ab'.rjust(5) }}|{{ 'banana'.count('a') }}|{{ 'banana'.find('n') }}|{{ 'banana'.find('x') }}|{{ 'banana'.rfind('a') }}|{{ 'a\\nb\\n'.splitlines() }}|{{ 'x=1=2'.partition('=') }}|{{ 'abc'.center(7, '*') }}",
    "ab...|   ab|3|2|-1|5|['a', 'b']|('x', '=', '1=2')|**abc**",
  ],
  [
    "{% set d = {'a': 1} %}{{ d.get('a') }}|{{ d.get('b') }}|{{ d.get('b', 2) }}|{{ d.items() | list }}|{{ d.keys() | list }}|{{ d.values() | list }}|{% do d.update({'b': 2}) %}{{ d }}|{{ d.setdefault('c', 3) }}{{ d }}|{{ d.pop('a') }}{{ d }}|{{ d.pop('z', 0) }}",
    "1|None|2|[('a', 1)]|['a']|[1]|{'a': 1, 'b': 2}|3{'a': 1, 'b': 2, 'c': 3}|1{'b': 2, 'c': 3}|0",
  ],
  [
    '{% set l = [3, 1] %}{% do l.append(2) %}{{ l }}|{% do l.extend([5, 4]) %}{{ l }}|{% do l.insert(0, 9) %}{{ l }}|{{ l.index(5) }}|{{ l.count(1) }}|{{ l.pop() }}{{ l }}|{{ l.pop(0) }}{{ l }}|{% do l.sort() %}{{ l }}|{% do l.reverse() %}{{ l }}|{% do l.sort(reverse=True) %}{{ l }}|{% do l.remove(3) %}{{ l }}',
    '[3, 1, 2]|[3, 1, 2, 5, 4]|[9, 3, 1, 2, 5, 4]|4|1|4[9, 3, 1, 2, 5]|9[3, 1, 2, 5]|[1, 2, 3, 5]|[5, 3, 2, 1]|[5, 3, 2, 1]|[5, 2, 1]',
  ],
  [
    "{{ 'a-b_c'.replace('-', '_').split('_') }}|{{ 'ab12'.isalnum() }}|{{ '12'.isdigit() }}|{{ 'Ab'.swapcase() }}|{{ 'a b'.split(' ')[1:] }}|{{ 'k=v'.split('=', 1)[1] }}|{{ '%-5s|%05.1f|%x|%r' % ('a', 3.14159, 255, 'q') }}",
    "['a', 'b', 'c']|True|True|aB|['b']|v|a    |003.1|ff|'q'",
  ],
  [
    "{% set n = namespace(c=0) %}{% for i in range(5) %}{% set n.c = n.c + i %}{% endfor %}{{ n.c }}|{{ range(10)[2:5] | list }}|{{ [1, 2] + [3] }}|{{ 'ab' * 2 }}|{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 2 ** 0.5 }}|{{ 1 / 3 }}|{{ 10 // 3 * 1.0 }}|{{ (0.1 + 0.2) * 10 }}",
    '10|[2, 3, 4]|[1, 2, 3]|abab|1|2|1.4142135623730951|0.3333333333333333|3.0|3.0000000000000004',
  ],
  [
    "{{ 1.5 | int }}|{{ 2.0 | string }}|{{ [1.0, 2] | sum }}|{{ 3 * 1.0 }}|{{ 3.0 == 3 }}|{{ 1.0 in [1] }}|{{ {'a': 1.0} | tojson }}|{{ {'a': 1.0} | json }}|{{ {'a': 1.0} | yaml }}|{{ 1.0 ~ 'x' }}|{{ -0.0 }}|{{ 1e16 }}|{{ 123456789.0 }}|{{ 1.5e-7 }}",
    '1|2.0|3.0|3.0|True|True|{"a": 1.0}|{"a": 1.0}|{a: 1.0}|1.0x|-0.0|1e+16|123456789.0|1.5e-07',
  ],
  [
    "{{ 'x' ~ 1.0 }}|{{ '%s' % 1.0 }}|{{ '%d' % 3.9 }}|{{ '{}'.format(2.0) }}|{{ [1.0] | first }}|{{ 2 is float }}|{{ 1.0 is number }}|{{ 3 // 2.0 }}|{{ 5 % 2.0 }}|{{ 2 ** 3.0 }}",
    'x1.0|1.0|3|2.0|1.0|False|True|1.0|1.0|8.0',
  ],
  ["{{ 1 in [1.0] }}|{{ 'a' in 'cat' }}|{{ 'a' in {'a': 1} }}|{{ 'b' not in ['a'] }}|{{ [1] in [[1], 2] }}", 'True|True|True|True|True'],
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

describe("brine's Jinja prints what Salt's Jinja prints", () => {
  it.each(SALT_JINJA)('%s', async (text, expected) => {
    expect(await render(text)).toBe(expected);
  });

  it("answers Python's errors with the line", async () => {
    expect((await failure('x\n{{ 1 / 0 }}')).message).toContain('division by zero');
    expect((await failure('{{ 1 // 0 }}')).message).toContain('integer division or modulo by zero');
    expect((await failure("{{ 'a' - 1 }}")).message).toContain("unsupported operand type(s) for -: 'str' and 'int'");
    expect((await failure('{{ x is nope }}')).message).toContain("No test named 'nope'.");
    expect((await failure('{{ [] | max }}')).message).toContain('max() arg is an empty sequence');
    expect((await failure("{{ 'abc' | truncate(2) }}")).message).toContain('expected length >= 3, got 2');
    expect((await failure('x\n{{ 1 / 0 }}')).line).toBe(2);
  });

  it('refuses what needs the network at render time, naming what to call instead', async () => {
    expect((await failure("{{ 'example.com' | dns_check(80) }}")).message).toContain("salt['dnsutil.A']");
    expect((await failure("{{ 'http://x' | http_query }}")).message).toContain("salt['http.query']");
  });
});
