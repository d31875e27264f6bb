import { BrineError } from '../errors';

/** A command line `shlex.split` cannot split (Python raises ValueError with the same words). */
export class ShlexError extends BrineError<'BAD_SHLEX'> {
  constructor(message: string) {
    super('BAD_SHLEX', message, { hint: 'close every quote and do not end the command with a lone backslash' });
  }
}

const WHITESPACE = ' \t\r\n';
const QUOTES = `'"`;

/**
 * Python's `shlex.split(line)` (POSIX mode, no comments), what Salt's cmd module uses when
 * `python_shell` is false. A port of `shlex.read_token`'s state machine, so its corners hold:
 * only space, tab, CR and LF separate words; inside double quotes a backslash escapes only `"`
 * and `\` (`"\$"` stays `\$`); an empty quoted word is a word.
 *
 * @example
 * shlexSplit(`echo "a b" 'c d' e\\ f`) // ['echo', 'a b', 'c d', 'e f']
 */
export function shlexSplit(line: string): string[] {
  const words: string[] = [];
  // ' ' between words, 'a' in a word, a quote character inside quotes, '\\' after a backslash.
  let state = ' ';
  let escapedState = ' ';
  let token = '';
  let quoted = false;
  const end = (): void => {
    if (token !== '' || quoted) words.push(token);
    token = '';
    quoted = false;
  };
  for (const c of line) {
    if (state === ' ' || state === 'a') {
      if (WHITESPACE.includes(c)) {
        if (state === 'a') end();
        state = ' ';
      } else if (QUOTES.includes(c)) {
        state = c;
      } else if (c === '\\') {
        escapedState = 'a';
        state = c;
      } else {
        token += c;
        state = 'a';
      }
    } else if (state === '\\') {
      // Inside double quotes a backslash before anything but `"` or `\` is kept.
      if (QUOTES.includes(escapedState) && c !== '\\' && c !== escapedState) token += '\\';
      token += c;
      state = escapedState;
    } else {
      quoted = true;
      if (c === state) state = 'a';
      else if (c === '\\' && state === '"') {
        escapedState = state;
        state = c;
      } else token += c;
    }
  }
  if (state === '\\') throw new ShlexError('No escaped character');
  if (QUOTES.includes(state)) throw new ShlexError('No closing quotation');
  end();
  return words;
}
