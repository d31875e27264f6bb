import { ConfigError } from '../errors';
import { loadYaml, type YamlValue } from './yaml11-load';
import { resolvePlainScalar } from './yaml11-resolver';

/**
 * A word YAML reads as one plain scalar, whatever its text: letters, digits and `_ . / + ~ = , ( ) -`,
 * not starting with `-`, `,` or `=`. Resolved here without the YAML parser (most words are such:
 * `test.ping`, `web`, `True`, `80`), with the parser's answer.
 */
const PLAIN_WORD = /^[A-Za-z0-9_./+~(][A-Za-z0-9_./+~=,()-]*$/;

/**
 * Salt's `salt.utils.args.yamlify_arg`: the value a command-line word stands for, read as YAML
 * with Salt's exceptions: blank words, `---` and `...`, digits with underscores (`1_000`) and words
 * holding a tab or line break stay text; `None` is None; a list or dict only when the word is
 * written in brackets or braces; `|`, `!` and `#...` keep their text; with a `#` the parse counts
 * only when it is not text; anything YAML cannot read stays as typed.
 *
 * @example
 * yamlifyArg('1') // 1
 * yamlifyArg('yes') // true
 * yamlifyArg('a: b') // 'a: b'
 * yamlifyArg('{a: b}') // { a: 'b' }
 */
export function yamlifyArg(word: string): unknown {
  const stripped = word.trim();
  if (stripped === '' || stripped === '---' || stripped === '...') return word;
  if (word.includes('_') && /^[0-9_]*$/.test(stripped)) return word;
  if (/[\t\r\n]/.test(word)) return word;
  if (word === 'None') return null;
  if (PLAIN_WORD.test(word)) return resolvePlainScalar(word);
  let parsed: YamlValue;
  try {
    if (word.includes('#')) {
      parsed = loadYaml(word, 'argument');
      return typeof parsed === 'string' || parsed === null ? word : parsed;
    }
    parsed = word === 'None' ? null : loadYaml(word, 'argument');
  } catch (err) {
    if (err instanceof ConfigError) return word;
    throw err;
  }
  if (Array.isArray(parsed)) return word.startsWith('[') ? parsed : word;
  if (parsed !== null && typeof parsed === 'object') return word.startsWith('{') ? parsed : word;
  if (parsed === '' && (word === '|' || word === '!')) return word;
  if (parsed === null && (stripped.startsWith('#') || word === '!')) return word;
  return parsed;
}
