/**
 * Jinja's wording for template syntax errors that nunjucks words differently. The unclosed-block
 * message names what Jinja was looking for, found from the template's own tags.
 */

const CLOSERS: Record<string, string[]> = {
  if: ['elif', 'else', 'endif'],
  for: ['endfor', 'else'],
  macro: ['endmacro'],
  call: ['endcall'],
  filter: ['endfilter'],
  set: ['endset'],
  block: ['endblock'],
  raw: ['endraw'],
  with: ['endwith'],
  load_yaml: ['endload'],
  load_json: ['endload'],
  load_text: ['endload'],
};

/** The innermost unclosed block of a template, and the tags Jinja would accept next. */
function unclosedBlock(text: string): { name: string; expected: string[] } | null {
  const stack: { name: string; expected: string[] }[] = [];
  const re = /\{%[-+]?\s*(\w+)(.*?)[-+]?%\}/gs;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const tag = m[1];
    const rest = m[2];
    if (tag === 'set' && rest.includes('=')) continue;
    if (tag in CLOSERS) {
      stack.push({ name: tag, expected: CLOSERS[tag] });
    } else if (tag === 'elif' && stack.length > 0) {
      stack[stack.length - 1].expected = ['elif', 'else', 'endif'];
    } else if (tag === 'else' && stack.length > 0) {
      const top = stack[stack.length - 1];
      top.expected = top.name === 'for' ? ['endfor'] : ['endif'];
    } else if (tag.startsWith('end') && stack.length > 0) {
      stack.pop();
    }
  }
  return stack.length > 0 ? stack[stack.length - 1] : null;
}

/** Jinja's line for an error at the end of the template: where its last token starts. */
function lastTokenLine(text: string): number {
  const ends = [...text.matchAll(/%\}|\}\}|#\}/g)];
  const at = ends.length > 0 ? ends[ends.length - 1].index! : 0;
  return text.slice(0, at).split('\n').length;
}

/** Jinja's message and line for a nunjucks parse error; null when nunjucks' words must do. */
export function jinjaSyntaxError(text: string, message: string, line: number | undefined): { message: string; line: number | undefined } {
  if (/end of file|got EOF|unexpected end of file/.test(message)) {
    const open = unclosedBlock(text);
    const eofLine = lastTokenLine(text);
    if (open) {
      const tags = open.expected.map((t) => `'${t}'`).join(' or ');
      return {
        message: `Unexpected end of template. Jinja was looking for the following tags: ${tags}. The innermost block that needs to be closed is '${open.name}'.`,
        line: eofLine,
      };
    }
    return { message: 'Unexpected end of template.', line: eofLine };
  }
  const unknown = /^unknown block tag: (\w+)/.exec(message);
  if (unknown) return { message: `Encountered unknown tag '${unknown[1]}'.`, line };
  return { message: message.replace(/^(parse\w+|advanceAfterBlockEnd): /, ''), line };
}
