import { describe, expect, it } from 'vitest';
import { runJobCacheBench } from '../../../../bench/job-cache-bench';
import { SKIP_PG } from './support/pg';

describe('job cache benchmark', () => {
  it('reports returns per second for SQLite and PostgreSQL', async () => {
    const skipped: string[] = [];
    const rows = await runJobCacheBench({ durationMs: 100, postgres: SKIP_PG ? 'skip' : undefined, onSkip: (r) => skipped.push(r) });
    expect(skipped).toEqual([]);
    const names = rows.map((r) => r.name);
    expect(names.filter((n) => n.includes('sqlite'))).toHaveLength(6);
    if (!SKIP_PG) expect(names.filter((n) => n.includes('postgres'))).toHaveLength(4);
    for (const r of rows) expect(r.opsPerSec).toBeGreaterThan(0);
  }, 120_000);
});
