/**
 * SharedValues: what a minion's record costs once its values are shared. The table's lookup keys
 * (each value's msgpack bytes as a string) are held once, in the table: when every record kept
 * its own copy of them, a fleet of 10,000 held 26 MiB of identical strings.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SharedValues } from '../../../src/core/master/shared-values';
import { decode, encode } from '../../../src/core/protocol/msgpack';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('SharedValues', () => {
  it('holds a value sent alike by 1,000 records once, with nothing per record beyond its references', () => {
    // 16 KiB of cpu flags, decoded afresh for each record as the master gets them.
    const flags = Array.from({ length: 2000 }, (_, i) => `flag-${i}`);
    const table = new SharedValues();
    const kept: unknown[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1000; i++) {
      kept.push(table.share(decode(encode({ id: `m${i}`, cpu_flags: flags })) as Record<string, unknown>));
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(table.size).toBe(1);
    // One shared copy (the array and its key: about 50 KiB) and 1,000 small records; a copy of
    // the key per record would add 16 MiB.
    expect(grown).toBeLessThan(2 * 1024 * 1024);
    expect(kept).toHaveLength(1000);
  });

  it('drops a value when the last record holding it is released', () => {
    const table = new SharedValues();
    const a = table.share({ path: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin' });
    const b = table.share({ path: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin' });
    expect(a.shared.path).toBe(b.shared.path);
    table.release(a.refs);
    expect(table.size).toBe(1);
    table.release(b.refs);
    expect(table.size).toBe(0);
    // A value sent again afterwards starts a new entry.
    table.share({ path: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin' });
    expect(table.size).toBe(1);
  });
});
