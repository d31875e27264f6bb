/**
 * A remembered job's expected minions (src/core/master/expected-minions.ts): a set of ids with
 * has/delete/size, small enough that the master's million remembered ids stay a few MiB.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ExpectedMinions } from '../../../src/core/master/expected-minions';

describe('ExpectedMinions', () => {
  it('answers has, delete and size as a set of the ids, duplicates counted once', () => {
    const set = ExpectedMinions.of(['web2', 'web1', 'db1', 'web1']);
    expect(set.size).toBe(3);
    for (const id of ['web1', 'web2', 'db1']) expect(set.has(id)).toBe(true);
    for (const id of ['web', 'web3', '', 'DB1']) expect(set.has(id)).toBe(false);
    expect(set.delete('web1')).toBe(true);
    expect(set.delete('web1')).toBe(false);
    expect(set.delete('nope')).toBe(false);
    expect(set.has('web1')).toBe(false);
    expect(set.has('web2')).toBe(true);
    expect(set.size).toBe(2);
  });

  it('finds every id of a large fleet, whatever its characters', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => [`m${i}`, `Ünï-${i}`, `😀${i}.example.com`, `a b/${i}`][i % 4]);
    const set = ExpectedMinions.of([...ids].reverse());
    expect(set.size).toBe(ids.length);
    expect(ids.every((id) => set.has(id))).toBe(true);
    expect(set.has('m5000')).toBe(false);
    for (const id of ids.slice(0, 100)) expect(set.delete(id)).toBe(true);
    expect(ids.slice(0, 100).some((id) => set.has(id))).toBe(false);
    expect(ids.slice(100).every((id) => set.has(id))).toBe(true);
    expect(set.size).toBe(ids.length - 100);
  });

  it('keeps each job its own: taking a minion off one job leaves the job it shares ids with', () => {
    const first = ExpectedMinions.of(['a', 'b', 'c']);
    const second = ExpectedMinions.of(['c', 'b', 'a'], first);
    expect(second.delete('b')).toBe(true);
    expect(first.has('b')).toBe(true);
    expect(first.size).toBe(3);
    const other = ExpectedMinions.of(['a', 'b'], second);
    expect(other.has('b')).toBe(true);
    expect(other.has('c')).toBe(false);
  });

  it('holds a hundred jobs of 10,000 minions each in a few MiB (a Set each: about 30)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const ids = Array.from({ length: 10_000 }, (_, i) => `minion-${i}.example.com`);
    const jobs: ExpectedMinions[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let j = 0; j < 100; j++) {
      const job = ExpectedMinions.of(ids, jobs.at(-1));
      job.delete(ids[j]);
      jobs.push(job);
    }
    gc();
    const grewMiB = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
    expect(jobs.every((job, j) => !job.has(ids[j]) && job.size === ids.length - 1)).toBe(true);
    expect(grewMiB).toBeLessThan(3);
  });
});
