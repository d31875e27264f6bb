/**
 * Salt's outputters (salt/output/): what `salt ... --out X` prints for a return.
 *
 *   process.stdout.write(formatOutput('nested', { web1: true }))   // "web1:\n    True\n"
 *
 * The result is exactly what goes to stdout, final newline included, as Salt's display_output
 * prints it (trailing whitespace of the whole text stripped, then one newline; nothing at all
 * when the outputter produced nothing). The CLI calls it once per minion as returns arrive
 * (`{ [id]: ret }`), or once with all returns under --static.
 */
import { OutputError } from './errors';
import { BrineError } from '../../core/errors';
import { getColors } from './colors';
import { formatJson, type JsonIndent } from '../../core/pycompat/json';
import { nestedLines } from '../../core/pycompat/nested';
import { formatPprint } from '../../core/pycompat/pprint';
import { compareCodePoints, entriesOf, isBytes, isMapping, pyRepr, pyStr } from '../../core/pycompat/repr';
import { pySplitlines } from '../../core/pycompat/text';
import { formatYaml } from '../../core/pycompat/yaml-emitter';

export const OUTPUTTERS = ['nested', 'json', 'yaml', 'txt', 'raw', 'quiet', 'pprint', 'newline_values_only'] as const;
export type Outputter = (typeof OUTPUTTERS)[number];

export interface OutputOptions {
  /**
   * Salt's output_indent (`--out-indent`): for json the indent width (null or negative: one
   * line; 'pretty': 4 with sorted keys), for yaml the indent (negative: flow style), for pprint
   * the indent per level. Unset = each outputter's default.
   */
  indent?: JsonIndent;
  /** Salt's nested_indent: where the nested outputter starts (default 0). */
  nestedIndent?: number;
  /**
   * false = `data` maps minion ids to returns and each is printed as its own document, as Salt
   * does without --static; true or unset = one document.
   */
  static?: boolean;
  /** Salt's colours (nested outputter; default off): see colors.ts useColor for when a CLI asks. */
  color?: boolean;
  /** The return's retcode: the nested outputter prints a failed return's keys in red, as Salt's `_retcode`. */
  retcode?: number;
}

/** Whether a name is one of brine's outputters (for validating `--out`). */
export function isOutputter(name: string): name is Outputter {
  return (OUTPUTTERS as readonly string[]).includes(name);
}

export function formatOutput(outputter: Outputter, data: unknown, opts: OutputOptions = {}): string {
  if (!isOutputter(outputter)) {
    throw new OutputError('BAD_OUTPUTTER', `unknown outputter '${String(outputter)}'`, { hint: `use one of: ${OUTPUTTERS.join(', ')}` });
  }
  if (opts.static === false && isMapping(data)) {
    return entriesOf(data)
      .map(([id, ret]) => formatOutput(outputter, { [id]: ret }, { ...opts, static: true }))
      .join('');
  }
  const text = render(outputter, data, opts);
  const trimmed = text.replace(/\s+$/u, '');
  return trimmed === '' ? '' : trimmed + '\n';
}

function render(outputter: Outputter, data: unknown, opts: OutputOptions): string {
  switch (outputter) {
    case 'nested':
      return nestedLines(data, opts.nestedIndent ?? 0, { colors: getColors(opts.color === true), retcode: opts.retcode }).join('\n');
    case 'json':
      return formatJson(data, opts.indent === undefined ? 4 : opts.indent);
    case 'yaml':
      return formatYaml(data, numericIndent(opts.indent, 'yaml'));
    case 'txt':
      return formatTxt(data);
    case 'raw':
      return typeof data === 'string' ? data : pyRepr(data);
    case 'pprint': {
      const indent = numericIndent(opts.indent, 'pprint');
      return formatPprint(data, indent !== undefined && indent >= 0 ? indent : 1);
    }
    case 'quiet':
      return '';
    case 'newline_values_only':
      return formatNewlineValuesOnly(data);
  }
}

function numericIndent(indent: JsonIndent | undefined, outputter: string): number | undefined {
  if (indent === undefined) return undefined;
  if (typeof indent === 'number' && Number.isInteger(indent)) return indent;
  throw new OutputError('BAD_OUTPUT_INDENT', `the ${outputter} outputter needs an integer indent, got ${String(indent)}`);
}

/**
 * salt/output/newline_values_only.py: each minion's value on its own line, a list's items one
 * per line, str() of everything (`salt '*' test.ping --out newline_values_only` prints True).
 */
export function formatNewlineValuesOnly(data: unknown): string {
  if (!isMapping(data)) return pyStr(data);
  const values = entriesOf(data).flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
  return values.map((v) => pyStr(v)).join('\n');
}

/** salt/output/txt.py: `key: line` for each line of each value, str() of non-strings. */
export function formatTxt(data: unknown): string {
  let ret = '';
  if (isMapping(data)) {
    for (const [key, value] of entriesOf(data)) {
      if (typeof value === 'string') for (const line of pySplitlines(value)) ret += `${key}: ${line}\n`;
      else if (isBytes(value)) for (const line of splitBytesLines(value)) ret += `${key}: ${pyRepr(line)}\n`;
      else ret += `${key}: ${pyStr(value)}\n`;
    }
    return ret;
  }
  if (typeof data === 'string') return data + '\n';
  return formatPprint(data) + '\n';
}

/** bytes.splitlines(): \n, \r and \r\n only. */
function splitBytesLines(b: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 10 || b[i] === 13) {
      lines.push(b.subarray(start, i));
      if (b[i] === 13 && b[i + 1] === 10) i++;
      start = i + 1;
    }
  }
  if (start < b.length) lines.push(b.subarray(start));
  return lines;
}

/**
 * salt/output/no_return.py, what Salt's CLI prints a minion that did not return with: keys in
 * cyan, each line of the message in red (the colour before the indent). Without colour it is the
 * nested outputter's text.
 */
export function formatNoReturn(data: Record<string, unknown>, color: boolean): string {
  const c = getColors(color);
  let out = '';
  const display = (value: unknown, indent: number): void => {
    if (typeof value === 'string') {
      for (const line of value.split('\n')) out += `${c.RED}${' '.repeat(indent)}${line}${c.ENDC}\n`;
    } else if (isMapping(value)) {
      for (const [key, val] of entriesOf(value).sort((a, b) => compareCodePoints(a[0], b[0]))) {
        out += `${c.CYAN}${' '.repeat(indent)}${key}${c.ENDC}:\n`;
        display(val, indent + 4);
      }
    }
  };
  display(data, 0);
  const trimmed = out.replace(/\s+$/u, '');
  return trimmed === '' ? '' : trimmed + '\n';
}

/**
 * The return Salt's CLI shows for a minion that did not answer (salt/client, get_cli_event_returns):
 * reason 'No response', or 'Not connected' when the master knows the minion is not connected.
 */
export function noReturnMessage(jid: string, reason: 'No response' | 'Not connected' = 'No response'): string {
  return (
    `Minion did not return. [${reason}]\n` +
    'The minions may not have all finished running and any remaining minions will return upon completion. ' +
    'To look up the return data for this job later, run the following command:\n\n' +
    `salt-run jobs.lookup_jid ${jid}`
  );
}

export { formatJson, formatYaml, formatPprint, nestedLines, pyRepr, pyStr };
export type { JsonIndent };
