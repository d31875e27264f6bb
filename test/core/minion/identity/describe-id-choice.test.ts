import { describe, expect, it } from 'vitest';
import { describeIdChoice, resolveMinionId } from '../../../../src/core/minion/identity';
import { fakeSources, recordingLog } from './fake-sources';

describe('describeIdChoice', () => {
  it('prints the id alone on the first line, then the rule, then each warning', async () => {
    const result = await resolveMinionId(
      {},
      '/etc/salt',
      fakeSources({
        hostname: 'web7',
        fqdn: { web7: 'localhost.localdomain' },
        files: { '/etc/hosts': '127.0.0.1 localhost.localdomain localhost\n127.0.0.1 web7\n' },
        cache: { '/etc/salt/minion_id': 'localhost.localdomain' },
      }),
      recordingLog(),
    );
    const lines = describeIdChoice(result).split('\n');
    expect(lines[0]).toBe('localhost.localdomain');
    expect(lines[1]).toBe(`chosen by: cache: ${result.detail}`);
    expect(lines.slice(2)).toEqual(result.warnings.map((w) => `warning: ${w}`));
    expect(lines).toHaveLength(3);
  });

  it('has no warning lines for a clean id', () => {
    expect(describeIdChoice({ id: 'web1', rule: 'config', detail: 'set by "id: web1" in /etc/salt/minion', warnings: [] })).toBe(
      'web1\nchosen by: config: set by "id: web1" in /etc/salt/minion',
    );
  });
});
