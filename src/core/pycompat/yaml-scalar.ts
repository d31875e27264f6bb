/**
 * How PyYAML's emitter looks at a string before writing it (Emitter.analyze_scalar): which
 * styles can carry it. The YAML outputter then picks plain, 'single' or "double" as PyYAML does.
 */

export interface ScalarAnalysis {
  empty: boolean;
  multiline: boolean;
  allowFlowPlain: boolean;
  allowBlockPlain: boolean;
  allowSingleQuoted: boolean;
  allowBlock: boolean;
}

const BREAKS = '\n\x85\u2028\u2029';
const WHITESPACE = '\0 \t\r\n\x85\u2028\u2029';

export function isBreak(ch: string | undefined): boolean {
  return ch !== undefined && BREAKS.includes(ch);
}

/** Whether PyYAML with allow_unicode=True writes this character as is. */
export function isPrintableUnicode(cp: number): boolean {
  return (
    (cp === 0x85 || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp < 0x10ffff)) && cp !== 0xfeff
  );
}

export function analyzeScalar(chars: readonly string[]): ScalarAnalysis {
  if (chars.length === 0) {
    return { empty: true, multiline: false, allowFlowPlain: false, allowBlockPlain: true, allowSingleQuoted: true, allowBlock: false };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  const head = chars.slice(0, 3).join('');
  if (head === '---' || head === '...') {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || WHITESPACE.includes(chars[1]);
  let previousSpace = false;
  let previousBreak = false;
  for (let index = 0; index < chars.length; index++) {
    const ch = chars[index];
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (ch === '?' || ch === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (ch === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else {
      if (',?[]{}'.includes(ch)) flowIndicators = true;
      if (ch === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (ch === '#' && precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    }
    if (isBreak(ch)) lineBreaks = true;
    const cp = ch.codePointAt(0)!;
    if (!(ch === '\n' || (cp >= 0x20 && cp <= 0x7e)) && !isPrintableUnicode(cp)) specialCharacters = true;
    if (ch === ' ') {
      if (index === 0) leadingSpace = true;
      if (index === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(ch)) {
      if (index === 0) leadingBreak = true;
      if (index === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = WHITESPACE.includes(ch);
    followedByWhitespace = index + 2 >= chars.length || WHITESPACE.includes(chars[index + 2]);
  }
  let allowFlowPlain = true;
  let allowBlockPlain = true;
  let allowSingleQuoted = true;
  let allowBlock = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) allowFlowPlain = allowBlockPlain = false;
  if (trailingSpace) allowBlock = false;
  if (breakSpace) allowFlowPlain = allowBlockPlain = allowSingleQuoted = false;
  if (spaceBreak || specialCharacters) allowFlowPlain = allowBlockPlain = allowSingleQuoted = allowBlock = false;
  if (lineBreaks) allowFlowPlain = allowBlockPlain = false;
  if (flowIndicators) allowFlowPlain = false;
  if (blockIndicators) allowBlockPlain = false;
  return { empty: false, multiline: lineBreaks, allowFlowPlain, allowBlockPlain, allowSingleQuoted, allowBlock };
}
