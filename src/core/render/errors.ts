import { BrineError } from '../errors';
import { pySplitlines } from '../pycompat';

/**
 * A template or data file that could not be rendered. `message` is Salt's own text
 * (`Jinja variable 'x' is undefined; line 3\n\n---\n...\n---`), so a caller can put it after
 * `Rendering SLS 'base:x' failed: ` exactly as Salt does. `line` is the 1-based line of the
 * rendered text where the problem is, when known.
 */
export class RenderError extends BrineError<RenderErrorCode> {
  readonly line?: number;
  constructor(code: RenderErrorCode, message: string, options: { cause?: unknown; line?: number; hint?: string } = {}) {
    super(code, message, options);
    this.line = options.line;
  }
}

/** The stable codes of {@link RenderError}. */
export type RenderErrorCode =
  | 'JINJA_UNDEFINED'
  | 'JINJA_SYNTAX'
  | 'JINJA_ERROR'
  | 'JINJA_CALL'
  | 'YAML_SYNTAX'
  | 'YAML_DUPLICATE_KEY'
  | 'JSON_SYNTAX'
  | 'UNKNOWN_RENDERER'
  | 'UNSUPPORTED_RENDERER'
  | 'TEMPLATE_NOT_FOUND';

const MARKER = '    <======================';

/**
 * Salt's `salt.utils.stringutils.get_context`: the lines around `line` (5 either side) between
 * `---` fences, `[...]` where lines were left out, the error line marked.
 */
export function errorContext(template: string, line: number, numLines = 5, marker = MARKER): string {
  const lines = pySplitlines(template);
  if (line > lines.length) return template;
  const start = Math.max(0, line - numLines - 1);
  const end = Math.min(lines.length, line + numLines);
  let at = line - start - 1;
  const buf: string[] = [];
  if (start > 0) {
    buf.push('[...]');
    at += 1;
  }
  buf.push(...lines.slice(start, end));
  if (end < lines.length) buf.push('[...]');
  buf[at] += marker;
  return `---\n${buf.join('\n')}\n---`;
}

/**
 * Salt's `SaltRenderError` text: the message, then `; line N` and the context block when both a
 * line and the source are known.
 */
export function saltRenderErrorText(message: string, line: number | undefined, source: string | undefined): string {
  if (!line || !source) return message;
  return `${message}; line ${line}\n\n${errorContext(source, line)}`;
}
