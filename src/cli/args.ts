/**
 * The salt CLI's positional arguments, turned into the job's `arg` list as Salt does
 * (salt.utils.args.parse_input, yamlify_arg and condition_input):
 *
 *   parseCliArgs(['1', 'two', 'foo=bar'])  ->  [1, 'two', { __kwarg__: true, foo: 'bar' }]
 *
 * Values are loaded as YAML 1.1 scalars with Salt's caveats: lists and dicts only when written
 * with brackets/braces, text with `#` only when it loads as a non-string, `None` is null, digits
 * with underscores stay text, and a 20-digit integer (a jid) goes back to its text.
 */
import { ConfigError } from '../core/errors';
import { yamlifyArg } from '../core/pycompat/yamlify';
import { packArgs, parseKwargString } from '../core/protocol/salt-args';

/** Split `key=value` as Salt's parse_kwarg; null when the word is positional. */
export const parseKwarg = parseKwargString;

/** Salt's is_jid: 20 digits, optionally followed by `_suffix`. */
function looksLikeJid(text: string): boolean {
  if (text.length !== 20 && (text.length <= 21 || text[20] !== '_')) return false;
  return /^[0-9]{20}/.test(text);
}

/**
 * The job's `arg` list from the words after the function name. Keyword arguments keep their
 * order in one trailing `{ __kwarg__: true, ... }` map, present only when there is one; a later
 * `key=` overrides an earlier one, as in Salt. Keyword arguments named in `noParse` (Salt's
 * `--no-parse=a,b`) keep their text as typed.
 */
export function parseCliArgs(words: readonly string[], noParse: readonly string[] = []): unknown[] {
  if (!Array.isArray(words)) throw new TypeError('parseCliArgs needs an array of strings');
  const args: unknown[] = [];
  const kwargs = new Map<string, unknown>();
  for (const word of words) {
    if (typeof word !== 'string') throw new TypeError(`parseCliArgs: every argument must be a string, got ${typeof word}`);
    const kw = parseKwarg(word);
    if (kw) kwargs.set(kw[0], noParse.includes(kw[0]) ? kw[1] : yamlifyArg(kw[1]));
    else args.push(yamlifyArg(word));
  }
  // condition_input: an integer that reads as a jid is sent as text.
  const out = args.map((a) =>
    (typeof a === 'number' || typeof a === 'bigint') && Number.isInteger(Number(a)) && looksLikeJid(String(a)) ? String(a) : a,
  );
  return packArgs(out, kwargs);
}

/**
 * The positional words of a command line in the order typed, from oclif's raw tokens. oclif's
 * own `argv` is re-sorted by first occurrence, which reorders repeated words: `salt '*' mine.get
 * '*' test.ping` would publish the arguments as ['mine.get', 'test.ping'].
 */
export function positionalWords(raw: ReadonlyArray<{ type: string; input: string }>): string[] {
  return raw.filter((t) => t.type === 'arg').map((t) => t.input);
}

/** Salt's `--no-parse=a,b`: the names, split on commas (the flag may be given more than once). */
export function noParseNames(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((n) => n.trim())
    .filter((n) => n !== '');
}
