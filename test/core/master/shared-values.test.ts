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

  it('gives every record the same frozen empty list and empty map, and keeps small lists that are not empty as they were', () => {
    const table = new SharedValues();
    const records = [0, 1].map((i) =>
      table.share(decode(encode({ gpus: [], pillar: {}, disks: [`vd${i}`], nested: { a: [] } })) as Record<string, unknown>),
    );
    const [a, b] = records.map((r) => r.shared);
    expect(a.gpus).toBe(b.gpus);
    expect(a.pillar).toBe(b.pillar);
    expect(Object.isFrozen(a.gpus) && Object.isFrozen(a.pillar)).toBe(true);
    expect(a.gpus).toEqual([]);
    expect(a.pillar).toEqual({});
    expect(a.disks).toEqual(['vd0']);
    expect(b.disks).toEqual(['vd1']);
    expect(a.nested).not.toBe(b.nested);
    expect(JSON.parse(JSON.stringify(a))).toEqual({ gpus: [], pillar: {}, disks: ['vd0'], nested: { a: [] } });
    // Nothing to count: releasing the records leaves no entry behind.
    for (const r of records) table.release(r.refs);
    expect(table.size).toBe(0);
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

describe('SharedValues: short strings', () => {
  it("keeps one copy of a short value that 5,000 records send alike, and each record's own values as they were", () => {
    const table = new SharedValues();
    const alike = { os: 'Debian', os_family: 'Debian', osrelease: '12', oscodename: 'bookworm', shell: '/bin/bash' };
    const grains = (i: number) => ({
      id: `minion-${i}`,
      ...alike,
      cpuarch: 'x86_64',
      kernel: 'Linux',
      init: 'systemd',
      virtual: 'physical',
      saltversion: '3007.10',
      ipv4: ['127.0.0.1', `10.0.${i >> 8}.${i & 255}`],
      ['__proto__']: 'a grain named so',
    });
    const wire = Array.from({ length: 5000 }, (_, i) => encode(grains(i)));
    const plain: unknown[] = [];
    const kept: unknown[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const bytes of wire) plain.push(decode(bytes));
    gc();
    const asDecoded = process.memoryUsage().heapUsed - before;
    for (const bytes of wire) kept.push(table.share(decode(bytes) as Record<string, unknown>).shared);
    gc();
    const asShared = process.memoryUsage().heapUsed - before - asDecoded;
    // The same data, each record its own: ids, addresses and the prototype-named grain intact.
    kept.forEach((record, i) => {
      expect(record).toEqual(plain[i]);
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toBe('a grain named so');
    });
    expect(table.size).toBe(0);
    // Eleven of a record's short strings are alike across records, about 40 bytes each as decoded.
    // Measured: about 3.5 MiB as decoded, 1.4 MiB shared; without the interning, alike.
    expect(asShared).toBeLessThan(asDecoded * 0.6);
  });
});
