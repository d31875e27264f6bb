import type { MinionIdResult } from './resolve-minion-id';

/**
 * What `salt-minion --print-id` prints: the id alone on the first line (so scripts can take it
 * with `head -1`), then the rule that chose it, then one line per warning.
 *
 * @example
 * describeIdChoice({ id: 'web7', rule: 'nodename', detail: '"web7" came from ...', warnings: [] })
 * // 'web7\nchosen by: nodename: "web7" came from ...'
 */
export function describeIdChoice(result: MinionIdResult): string {
  const lines = [result.id, `chosen by: ${result.rule}: ${result.detail}`];
  for (const w of result.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}
