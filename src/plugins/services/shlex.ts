import { InvocationError } from '../api/errors';

/**
 * Split a command line the way Python's `shlex.split` does in POSIX mode (what Salt's cmd module
 * uses when `python_shell` is false): whitespace separates words, single quotes keep everything,
 * double quotes keep everything but `\"`, `\\`, `\$` and `` \` ``, a backslash outside quotes
 * escapes the next character.
 *
 * @example
 * shlexSplit(`echo "a b" 'c d' e\\ f`) // ['echo', 'a b', 'c d', 'e f']
 */
export function shlexSplit(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new InvocationError(`No closing quotation in command: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1])) j++;
        word += line[j];
      }
      if (j >= line.length) throw new InvocationError(`No closing quotation in command: ${line}`);
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new InvocationError(`No escaped character in command: ${line}`);
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
