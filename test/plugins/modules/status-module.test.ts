import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/ports';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeHost } from '../../../src/plugins/services/host';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';
import { pyStrftime } from '../../../src/core/pycompat/time';

/** A Linux root whose /proc files were copied from a real host; salt-status.json is what Salt 3007.10's own functions answer for them. */
const ROOT = fixture('roots', 'status-linux');
const SALT = JSON.parse(readFileSync(fixture('roots', 'status-linux', 'salt-status.json'), 'utf8')) as Record<string, unknown>;
const OUT = (name: string): string => readFileSync(fixture('command-output', name), 'utf8');
const SALT_CMD = JSON.parse(OUT('salt-expected.json')) as Record<string, unknown>;

const PS = `UID          PID    PPID  C STIME TTY          TIME CMD
root           1       0  0 10:00 ?        00:00:01 /sbin/init splash
www-data     812       1  0 10:01 ?        00:00:00   nginx: worker process
root         900       1  0 10:02 pts/0    00:00:00 -bash
`;
const W = `root     pts/0     10:02    1:05   0.02s  0.01s -bash
alice    pts/1     10:30    0.00s  0.10s  0.00s vim notes.txt
`;

const COMMANDS: Record<string, string> = {
  'who -s': 'root     pts/0        2026-12-03 10:02\nalice    pts/1        2026-12-03 10:30\n',
  'ps -efHww': PS,
  'w -fh': W,
  nproc: '2\n',
  'df -P': OUT('df-P.txt'),
  'df -iP': OUT('df-iP.txt'),
};
const shell = fakeShell(
  (cmd) => {
    const key = Array.isArray(cmd) ? cmd.join(' ') : cmd;
    return key in COMMANDS ? { stdout: COMMANDS[key] } : { retcode: 127, stderr: `${key}: not found` };
  },
  Object.fromEntries(['who', 'w', 'df', 'nproc'].map((c) => [c, `/usr/bin/${c}`])),
);

describe('status.master and status.ping_master', () => {
  const head = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  const tail = ' 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n';
  const root = mkdtempSync(join(tmpdir(), 'brine-status-master-'));
  mkdirSync(join(root, 'proc', 'net'), { recursive: true });
  // Established to 127.0.0.1:4505, listening on 4505 (not a connection), established to [::ffff:10.0.0.5]:4505 and [::1]:4505 on port 4506.
  writeFileSync(
    join(root, 'proc', 'net', 'tcp'),
    `${head}   0: 0100007F:C350 0100007F:1199 01${tail}   1: 00000000:1199 00000000:0000 0A${tail}`,
  );
  writeFileSync(
    join(root, 'proc', 'net', 'tcp6'),
    `${head}   0: 00000000000000000000000001000000:C351 0000000000000000FFFF00000500000A:1199 01${tail}` +
      `   1: 00000000000000000000000001000000:C352 00000000000000000000000001000000:119A 01${tail}`,
  );
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('status.master: whether a connection to the master publish_port is established (IPv4, v4-mapped IPv6), None without a master', async () => {
    const h = await createHarness({ host: new NodeHost(root), grains: { kernel: 'Linux' } });
    expect((await h.call('status.master', ['127.0.0.1'])).return).toBe(true);
    expect((await h.call('status.master', ['10.0.0.5'])).return).toBe(true);
    expect((await h.call('status.master', ['10.0.0.6'])).return).toBe(false);
    expect((await h.call('status.master')).return).toBeNull();
    const other = await createHarness({ host: new NodeHost(root), grains: { kernel: 'Linux' }, config: { publish_port: 4506 } });
    expect((await other.call('status.master', ['::1'])).return).toBe(true);
    expect((await other.call('status.master', ['127.0.0.1'])).return).toBe(false);
  });

  it('status.ping_master: False for no master or one that does not answer', async () => {
    const h = await createHarness({ grains: { kernel: 'Linux' }, config: { auth_timeout: 1 } });
    expect((await h.call('status.ping_master', [''])).return).toBe(false);
    expect((await h.call('status.ping_master', [`127.0.0.1:${await freePort()}`])).return).toBe(false);
  });
});

describe('status and disk modules', () => {
  let h: Harness;
  const harness = async (): Promise<Harness> =>
    (h ??= await createHarness({ host: new NodeHost(ROOT), shell, grains: { kernel: 'Linux', ps: 'ps -efHww' } }));

  it("cpustats, meminfo, cpuinfo, diskstats, vmstats, netstats, netdev, version, loadavg equal Salt's answers for the same /proc", async () => {
    const s = await harness();
    for (const fn of ['cpustats', 'meminfo', 'cpuinfo', 'diskstats', 'vmstats', 'netstats', 'netdev', 'version', 'loadavg'])
      expect([fn, (await s.call(`status.${fn}`)).return]).toEqual([fn, SALT[fn]]);
  });

  it('uptime from /proc/uptime, with the users `who -s` lists', async () => {
    const s = await harness();
    const seconds = Math.trunc(Number(readFileSync(`${ROOT}/proc/uptime`, 'utf8').split(' ')[0]));
    const up = (await s.call('status.uptime')).return as Record<string, unknown>;
    expect(up).toMatchObject({
      seconds,
      days: Math.floor(seconds / 86400),
      time: `${Math.floor((seconds % 86400) / 3600)}:${Math.floor((seconds % 3600) / 60)}`,
      users: 2,
    });
    expect(Math.abs((up.since_t as number) - (Date.now() / 1000 - seconds))).toBeLessThan(5);
    expect(up.since_iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
  });

  it('procs, pid, w, nproc from the programs Salt runs', async () => {
    const s = await harness();
    expect((await s.call('status.procs')).return).toEqual({
      '1': { user: 'root', cmd: '/sbin/init splash' },
      '812': { user: 'www-data', cmd: 'nginx: worker process' },
      '900': { user: 'root', cmd: '-bash' },
    });
    expect((await s.call('status.pid', ['nginx|init'])).return).toBe('1\n812');
    expect((await s.call('status.pid', ['nothing-like-this'])).return).toBe('');
    expect((await s.call('status.w')).return).toEqual([
      { idle: '1:05', jcpu: '0.02s', login: '10:02', pcpu: '0.01s', tty: 'pts/0', user: 'root', what: '-bash' },
      { idle: '0.00s', jcpu: '0.10s', login: '10:30', pcpu: '0.00s', tty: 'pts/1', user: 'alice', what: 'vim notes.txt' },
    ]);
    expect((await s.call('status.nproc')).return).toBe(2);
  });

  it('diskusage by file system type (from /proc/mounts) and by path, with statvfs of the real mounts', async () => {
    const s = await harness();
    expect((await s.call('status.diskusage', ['sysfs'])).return).toEqual({ '/sys': { available: 0, total: 0 } });
    const byPath = (await s.call('status.diskusage', ['/'])).return as Record<string, { available: number; total: number }>;
    expect(byPath['/'].total).toBeGreaterThan(0);
    expect(Object.keys((await s.call('status.diskusage')).return as object).sort()).toEqual(['/dev', '/dev/shm', '/proc', '/sys']);
  });

  it("disk.usage, inodeusage, percent equal Salt's parse of the same df output", async () => {
    const s = await harness();
    expect((await s.call('disk.usage')).return).toEqual(SALT_CMD.disk_usage);
    expect((await s.call('disk.inodeusage')).return).toEqual(SALT_CMD.disk_inodeusage);
    expect((await s.call('disk.percent')).return).toEqual(SALT_CMD.disk_percent);
    expect((await s.call('disk.percent', ['/'])).return).toBe(SALT_CMD.disk_percent_root);
    expect((await s.call('disk.percent', ['/nope'])).return).toEqual({});
    expect(await s.call('disk.usage', [], { args: 'Tq' })).toMatchObject({
      return: 'ERROR: Invalid flag passed to disk.usage',
      retcode: 1,
    });
  });

  it('every function is documented for sys.doc; off Linux the answer is Salt\'s "unsupported"', async () => {
    const s = await harness();
    const docs = (await s.call('sys.doc', ['status.', 'disk.'])).return as Record<string, string>;
    for (const fn of ['uptime', 'loadavg', 'meminfo', 'cpuinfo', 'cpustats', 'diskusage', 'procs', 'w', 'pid'])
      expect(docs[`status.${fn}`]).toMatch(/CLI Example/);
    for (const fn of ['usage', 'inodeusage', 'percent']) expect(docs[`disk.${fn}`]).toMatch(/CLI Example/);
    const bsd = await createHarness({ host: new NodeHost(ROOT), shell, grains: { kernel: 'Plan9' } });
    expect((await bsd.call('status.meminfo')).return).toBe('This method is unsupported on the current operating system!');
  });

  it("status.time formats with Python's strftime (values of Python's datetime.strftime)", async () => {
    expect(pyStrftime(new Date(2026, 2, 5, 14, 7, 9, 123), '%a %A %w %d %b %B %m %y %Y %H %I %p %M %S %f %j %U %W %c %x %X %% %q')).toBe(
      'Thu Thursday 4 05 Mar March 03 26 2026 14 02 PM 07 09 123000 064 09 09 Thu Mar  5 14:07:09 2026 03/05/26 14:07:09 % %q',
    );
    expect(pyStrftime(new Date(2026, 0, 1, 0, 5, 0), '%A, %d. %B %Y %I:%M%p %j %U %W')).toBe(
      'Thursday, 01. January 2026 12:05AM 001 00 00',
    );
    const s = await harness();
    expect(Math.abs(Number((await s.call('status.time', ['%s'])).return) - Date.now() / 1000)).toBeLessThan(5);
    expect((await s.call('status.time')).return).toMatch(/^[A-Z][a-z]+day, \d\d\. [A-Z][a-z]+ \d{4} \d\d:\d\d[AP]M$/);
  });

  it('answers on this machine with its real /proc and programs', async () => {
    const real = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux', ps: 'ps -efHww' } });
    expect(((await real.call('status.uptime')).return as { seconds: number }).seconds).toBeGreaterThan(0);
    expect(Object.keys((await real.call('status.meminfo')).return as object)).toContain('MemTotal');
    expect(Object.keys((await real.call('status.procs')).return as object)).toContain('1');
    expect(Object.keys((await real.call('disk.usage')).return as object)).toContain('/');
  });
});
