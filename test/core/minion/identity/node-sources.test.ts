import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrineError } from '../../../../src/core/errors';
import { createNodeIdentitySources, resolveMinionId } from '../../../../src/core/minion/identity';
import { recordingLog } from './fake-sources';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-identity-'));
  fs.mkdirSync(path.join(root, 'etc'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const write = (name: string, text: string) => fs.writeFileSync(path.join(root, name), text);

describe('createNodeIdentitySources against a temp root', () => {
  it('reads host files under the root, null when missing', async () => {
    write('etc/hostname', 'web1\n');
    const sources = createNodeIdentitySources({ root });
    expect(await sources.readSystemFile('/etc/hostname')).toBe('web1\n');
    expect(await sources.readSystemFile('/etc/nodename')).toBeNull();
    await expect(sources.readSystemFile('etc/hostname')).rejects.toMatchObject({ code: 'BAD_PATH' });
  });

  it("answers getfqdn() and the canonical name from the root's /etc/hosts, as glibc's files lookup does", async () => {
    write('etc/hosts', '127.0.0.1 localhost.localdomain localhost\n127.0.0.1 web7\n10.1.2.3 db1 db1.example.com # db\n::1 ip6-localhost\n');
    const sources = createNodeIdentitySources({ root });
    // web7 -> 127.0.0.1 -> the first 127.0.0.1 line: the field failure's getfqdn() answer.
    expect(await sources.getfqdn('web7')).toBe('localhost.localdomain');
    // The first name with a dot wins over the canonical name.
    expect(await sources.getfqdn('db1')).toBe('db1.example.com');
    expect(await sources.getfqdn('10.1.2.3')).toBe('db1.example.com');
    expect(await sources.getfqdn('0::1')).toBe('ip6-localhost');
    expect(await sources.canonicalName('localhost')).toBe('localhost.localdomain');
    expect(await sources.canonicalName('nosuchname')).toBeNull();
  });

  it('reads and writes the id cache, creating its directory', async () => {
    const sources = createNodeIdentitySources({ root });
    const file = path.join(root, 'etc/salt/minion_id');
    expect(await sources.readCacheFile(file)).toBeNull();
    await sources.writeCacheFile(file, 'web1');
    expect(fs.readFileSync(file, 'utf8')).toBe('web1');
    expect(await sources.readCacheFile(file)).toBe('web1');
  });

  it('a cache path that is a directory is an error, not "missing"', async () => {
    const sources = createNodeIdentitySources({ root });
    fs.mkdirSync(path.join(root, 'etc/salt/minion_id'), { recursive: true });
    await expect(sources.readCacheFile(path.join(root, 'etc/salt/minion_id'))).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('lists IPv4 interface addresses, loopback included', async () => {
    const addrs = await createNodeIdentitySources({ root }).ipv4Addresses();
    expect(addrs).toContain('127.0.0.1');
    expect(addrs.every((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a))).toBe(true);
  });

  it("resolves from a cache under the root (the stale check answered from the root's /etc/hosts)", async () => {
    fs.mkdirSync(path.join(root, 'etc/salt'));
    write('etc/salt/minion_id', '\ufeffweb-cached\n');
    write('etc/hosts', `127.0.0.1 localhost\n127.0.1.1 ${os.hostname()}\n`);
    const result = await resolveMinionId({}, path.join(root, 'etc/salt'), createNodeIdentitySources({ root }), recordingLog());
    expect(result).toMatchObject({ id: 'web-cached', rule: 'cache' });
  });

  it('refuses a relative root and a bad timeout', () => {
    expect(() => createNodeIdentitySources({ root: 'relative' })).toThrow(BrineError);
    expect(() => createNodeIdentitySources({ root, lookupTimeoutMs: 0 })).toThrow(/lookupTimeoutMs/);
  });
});
