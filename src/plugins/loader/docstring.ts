import type { FnDocs } from '../api/metadata';

const INDENT = '    ';

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : prefix + line))
    .join('\n');
}

/**
 * A function's structured docs as the docstring Salt's `sys.doc` returns: Salt's modules indent
 * their docstrings by four spaces inside the function, and `sys.doc` strips the reST
 * `.. code-block:: bash` line, leaving the examples indented by eight. An empty `docs` gives ''.
 *
 * @example
 * renderDocstring({ summary: 'Ping.', examples: ["salt '*' test.ping"] })
 * // "\n    Ping.\n\n    CLI Example:\n\n        salt '*' test.ping\n    "
 */
export function renderDocstring(docs: FnDocs): string {
  const blocks: string[] = [];
  if (docs.summary) blocks.push(indent(docs.summary.trim(), INDENT));
  if (docs.description) blocks.push(indent(docs.description.trim(), INDENT));
  if (docs.examples && docs.examples.length > 0) {
    blocks.push(`${INDENT}CLI Example:\n\n${docs.examples.map((e) => indent(e.trim(), INDENT + INDENT)).join('\n')}`);
  }
  return blocks.length === 0 ? '' : `\n${blocks.join('\n\n')}\n${INDENT}`;
}
