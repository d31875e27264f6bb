/**
 * A Salt admin's first day (issue 13): the commands and flags scripts use, on real binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Cluster, freePort, waitForFileText } from '../support/cluster';
import { SQLITE_FILE, SqliteJobCache } from '../../src/core/master/job-cache';

let cluster: Cluster;
let returned: string;

/** A returner as a third party writes one: `@Returner('filer')`, function `returner(ret)`. */
function writeReturner(dir: string, out: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'filer.js'),
    `const { Returner, Fn, arg } = require('brine/plugin');
const { appendFileSync } = require('node:fs');
class Filer {
  returner({ ret }) {
    appendFileSync(${JSON.stringify(out)}, JSON.stringify(ret) + '\\n');
    return true;
  }
  event_return({ events }) {
    appendFileSync(${JSON.stringify(`${out}.events`)}, events.map((e) => JSON.stringify(e) + '\\n').join(''));
  }
}
Fn({ args: { ret: arg.dict() } })(Filer.prototype, 'returner');
Fn({ args: { events: arg.list() } })(Filer.prototype, 'event_return');
Returner('filer')(Filer);
module.exports = { Filer };
`,
  );
}

beforeAll(async () => {
  // The master keeps what minions push (cp.push) and sends its events to the filer returner.
  cluster = await Cluster.create({ file_recv: true, event_return: 'filer' });
  const modules = join(cluster.root, 'returners');
  returned = join(cluster.root, 'returned.jsonl');
  writeReturner(modules, returned);
  appendFileSync(join(cluster.masterDir, 'master'), `module_dirs:\n  - ${modules}\n`);
  await cluster.startMaster();
  // Each minion in its own folder: salt-cp to a relative path lands in each minion's own.
  const work = (id: string) => {
    mkdirSync(join(cluster.root, 'work', id), { recursive: true });
    return join(cluster.root, 'work', id);
  };
  await cluster.startAccepted([
    { id: 'day1', config: { module_dirs: [modules] }, cwd: work('day1') },
    { id: 'day2', cwd: work('day2') },
  ]);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('cmd.run through salt', () => {
  it("cmd.run 'sleep 10' timeout=2 answers as Salt's: the timeout text and exit code 1", async () => {
    const started = Date.now();
    // sleep 30, so that the bound below proves the kill even on a loaded machine.
    const res = await cluster.salt('day1', 'cmd.run', 'sleep 30', 'timeout=2', '-t', '40');
    expect(res.stdout).toBe('day1:\n    sleep 30 : Timed out after 2 seconds\n');
    expect(res.stderr).toBe('ERROR: Minions returned with non-zero exit code\n');
    expect(res.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 60_000);
});

describe('salt-call signs in first, as Salt does', () => {
  it("with the master down: Salt's line on stderr, exit 1, nothing run", async () => {
    const dir = cluster.writeMinionConfig({ id: 'lonely', config: { master_port: await freePort(), auth_tries: 1, auth_timeout: 1 } });
    const started = Date.now();
    const res = await cluster.run('salt-call', ['test.ping'], dir);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('Attempt to authenticate with the salt master failed with timeout error\n');
    expect(res.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("with its key not accepted yet: Salt's question, exit 2", async () => {
    const dir = cluster.writeMinionConfig({ id: 'newcomer', config: { auth_tries: 1, auth_timeout: 5 } });
    const res = await cluster.run('salt-call', ['test.ping'], dir);
    expect(res.stdout).toBe('Minion failed to authenticate with the master, has the minion key been accepted?\n');
    expect(res.code).toBe(2);
  }, 30_000);

  it('with the master up and the key accepted: the return', async () => {
    const res = await cluster.run('salt-call', ['test.ping'], cluster.minionDir('day1'));
    expect(res.stdout).toBe('local:\n    True\n');
    expect(res.code).toBe(0);
  }, 30_000);
});

describe('--return', () => {
  it('sends the return to the named returner plugin as well', async () => {
    const res = await cluster.salt('day1', 'test.echo', 'via-returner', '--return', 'filer');
    expect(res.stdout).toBe('day1:\n    via-returner\n');
    const text = await waitForFileText(returned, 'via-returner');
    const ret = JSON.parse(text.trim().split('\n').pop()!);
    expect(ret).toMatchObject({
      id: 'day1',
      fun: 'test.echo',
      fun_args: ['via-returner'],
      return: 'via-returner',
      retcode: 0,
      success: true,
    });
    expect(ret.jid).toMatch(/^\d{20}$/);
  }, 30_000);

  it("an unknown returner is an error in the minion log, with Salt's words", async () => {
    const res = await cluster.salt('day1', 'test.ping', '--return', 'nosuch');
    expect(res.stdout).toBe('day1:\n    True\n');
    await cluster.minions.get('day1')!.waitFor("Returner nosuch.returner could not be loaded: 'nosuch.returner' is not available.");
  }, 30_000);
});

describe('--help', () => {
  it('names each binary once in its usage line', async () => {
    const salt = await cluster.run('salt', ['--help']);
    expect(salt.stdout).toContain("$ salt [options] '<target>' <function> [arguments]");
    expect(salt.stdout).not.toContain('$ salt salt');
    const key = await cluster.run('salt-key', ['--help']);
    expect(key.stdout).toMatch(/USAGE\n {2}\$ salt-key \[/);
  });
});

describe('version identity', () => {
  it('--version and -V on every binary, without a target or a master', async () => {
    for (const bin of ['salt', 'salt-key', 'salt-run', 'salt-call', 'salt-master', 'salt-minion']) {
      const v = await cluster.run(bin, ['--version']);
      expect(v.stdout).toBe(`${bin} 3007.10 (Chlorine)\n`);
      expect(v.code).toBe(0);
    }
    const report = await cluster.run('salt', ['-V']);
    expect(report.stdout).toMatch(/^Salt Version:\n +brine: \d+\.\d+\.\d+\n +Salt: 3007\.10\n/);
    expect(report.stdout).toMatch(/Dependency Versions:\n(.*\n)* +zeromq: 6\./);
  }, 60_000);

  it('grains and test.version report Salt 3007.10, brineversion brine; manage.versions as Salt', async () => {
    const grains = await cluster.salt('day1', 'grains.item', 'saltversion', 'saltversioninfo', 'brineversion', '--out', 'json');
    expect(JSON.parse(grains.stdout).day1).toMatchObject({
      saltversion: '3007.10',
      saltversioninfo: [3007, 10],
      brineversion: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect((await cluster.salt('day1', 'test.version', '--out', 'newline_values_only')).stdout).toBe('3007.10\n');
    const versions = await cluster.run('salt-run', ['manage.versions']);
    // Salt's nested outputter sorts the keys.
    expect(versions.stdout).toBe(
      'Master:\n    3007.10\nUp to date:\n    ----------\n    day1:\n        3007.10\n    day2:\n        3007.10\n',
    );
  }, 60_000);
});

describe('flags scripts use', () => {
  it("--force-color prints Salt's colours even into a pipe, --no-color none; salt-call --metadata prints the job's data", async () => {
    // Salt's nested outputter: the minion id cyan, True light yellow, each closed by \x1b[0;0m.
    const colored = '\x1b[0;36mday1\x1b[0;0m:\n    \x1b[0;1;33mTrue\x1b[0;0m\n';
    expect((await cluster.salt('day1', 'test.ping', '--force-color')).stdout).toBe(colored);
    expect((await cluster.salt('day1', 'test.ping', '--no-color')).stdout).toBe('day1:\n    True\n');
    const run = await cluster.run('salt-run', ['manage.up', '--force-color']);
    expect(run.stdout).toContain('\x1b[0;32m- day1\x1b[0;0m');
    expect((await cluster.run('salt-key', ['-L', '--no-color'])).code).toBe(0);
    const call = await cluster.run('salt-call', ['--local', 'test.ping', '--metadata', '--out', 'json'], cluster.minionDir('day1'));
    const { local } = JSON.parse(call.stdout);
    expect(local).toMatchObject({ return: true, retcode: 0, id: 'day1', fun: 'test.ping', fun_args: [] });
    expect(local.jid).toMatch(/^\d{20}$/);
  }, 30_000);

  it('salt-call --return hands the return, with --set-metadata, to the returner under its own jid', async () => {
    const call = await cluster.run(
      'salt-call',
      ['--local', 'test.echo', 'kept', '--return', 'local_cache', '--set-metadata', '{"ticket": "OPS-3"}', '--metadata', '--out', 'json'],
      cluster.minionDir('day1'),
    );
    const { local } = JSON.parse(call.stdout);
    expect(local.metadata).toEqual({ ticket: 'OPS-3' });
    // local_cache on a minion: the SQLite job cache in its cachedir.
    const cache = new SqliteJobCache(join(cluster.root, 'minions', 'day1', 'var', 'cache', 'salt', 'minion', SQLITE_FILE));
    try {
      expect(cache.getReturns(local.jid)).toMatchObject({ day1: { return: 'kept', retcode: 0, success: true } });
    } finally {
      cache.close();
    }
  }, 30_000);

  it("status.ping_master: a master's clear ping answers on its request port", async () => {
    const res = await cluster.salt('day1', 'status.ping_master', `127.0.0.1:${cluster.retPort}`, '--out', 'json');
    expect(JSON.parse(res.stdout)).toEqual({ day1: true });
  }, 30_000);

  it('--no-parse keeps the named keyword arguments as text', async () => {
    const res = await cluster.salt('day1', 'test.arg', 'x=007', 'y=007', '--no-parse=x', '--out', 'json');
    const { kwargs } = JSON.parse(res.stdout).day1;
    expect(kwargs.x).toBe('007');
    expect(kwargs.y).toBe(7);
  }, 30_000);

  it("--log-file and --log-file-level send salt-call's log where asked", async () => {
    const file = join(cluster.root, 'call.log');
    const res = await cluster.run(
      'salt-call',
      ['--local', 'test.ping', '--log-file', file, '--log-file-level', 'debug'],
      cluster.minionDir('day1'),
    );
    expect(res.stdout).toBe('local:\n    True\n');
    expect(await waitForFileText(file, '[DEBUG   ]')).toContain('[DEBUG   ]');
  }, 30_000);

  it('--log-file and --log-file-level on salt and salt-run write their log where asked', async () => {
    const saltLog = join(cluster.root, 'salt-cli.log');
    const res = await cluster.salt('day1', 'test.ping', '--log-file', saltLog, '--log-file-level', 'debug');
    expect(res.stdout).toBe('day1:\n    True\n');
    expect(await waitForFileText(saltLog, 'Got return from day1')).toMatch(/\[DEBUG   \]\[\d+\] Published test\.ping to "day1"/);
    const runLog = join(cluster.root, 'salt-run.log');
    expect((await cluster.run('salt-run', ['manage.up', '--log-file', runLog, '--log-file-level', 'debug'])).code).toBe(0);
    expect(await waitForFileText(runLog, 'Running runner manage.up')).toContain('[DEBUG   ]');
  }, 30_000);
});

describe('--subset and --failhard', () => {
  it('--subset 1 runs on one of the targeted minions', async () => {
    const res = await cluster.salt('day*', 'test.ping', '--subset', '1', '--out', 'json', '--static');
    expect(res.code).toBe(0);
    const ids = Object.keys(JSON.parse(res.stdout));
    expect(ids).toHaveLength(1);
    expect(['day1', 'day2']).toContain(ids[0]);
    const none = await cluster.salt('day*', 'no_such.fun', '--subset', '1');
    expect(none.stdout).toBe('No minions matched the target. No command was sent, no jid was assigned.\n');
    expect(none.code).toBe(2);
  }, 30_000);

  it('--failhard stops a batch run at the first minion that fails', async () => {
    const res = await cluster.salt('day*', 'cmd.run', 'exit 3', '-b', '1', '--failhard');
    expect(res.stdout.match(/Executing run on/g)).toHaveLength(1);
    expect(res.stderr).toMatch(/\[ERROR   \] Minion day\d returned with non-zero exit code\. Batch run stopped due to failhard\n/);
    expect(res.code).toBe(3);
  }, 30_000);
});

describe('event_return on the master', () => {
  it("hands the master's events to the named returner's event_return", async () => {
    await cluster.salt('day2', 'test.echo', 'event-return-marker');
    const text = await waitForFileText(`${returned}.events`, /"tag":"salt\/job\/\d{20}\/ret\/day2".*event-return-marker/);
    const events = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tag: string; data: Record<string, unknown> });
    const ret = events.find((e) => /\/ret\/day2$/.test(e.tag) && e.data.return === 'event-return-marker')!;
    expect(ret.data).toMatchObject({ id: 'day2', fun: 'test.echo', return: 'event-return-marker', success: true });
    expect(events.some((e) => e.tag === `salt/job/${String(ret.data.jid)}/new`)).toBe(true);
  }, 30_000);
});

describe('salt-cp', () => {
  it("--chunked copies a file of several chunks and a directory to two minions; Salt's nested output", async () => {
    const src = join(cluster.root, 'cp-src');
    mkdirSync(join(src, 'site', 'css'), { recursive: true });
    mkdirSync(join(src, 'site', 'empty'), { recursive: true });
    // 250,000 bytes: three chunks of salt_cp_chunk_size (98304).
    const big = randomBytes(125_000).toString('hex');
    writeFileSync(join(src, 'big.txt'), big);
    writeFileSync(join(src, 'site', 'index.html'), '<h1>hi</h1>\n');
    writeFileSync(join(src, 'site', 'css', 'a.css'), 'body {}\n', { mode: 0o640 });
    const res = await cluster.run('salt-cp', ['day*', '-C', join(src, 'big.txt'), join(src, 'site'), 'copied/']);
    const block = (id: string) =>
      `${id}:\n    ----------\n    copied/big.txt:\n        True\n    copied/site/css/a.css:\n        True\n` +
      `    copied/site/empty:\n        True\n    copied/site/index.html:\n        True\n`;
    expect(res.stdout).toBe(block('day1') + block('day2'));
    expect(res.code).toBe(0);
    for (const id of ['day1', 'day2']) {
      const dest = join(cluster.root, 'work', id, 'copied');
      expect(readFileSync(join(dest, 'big.txt'), 'utf8')).toBe(big);
      expect(readFileSync(join(dest, 'site', 'index.html'), 'utf8')).toBe('<h1>hi</h1>\n');
      expect(statSync(join(dest, 'site', 'css', 'a.css')).mode & 0o777).toBe(0o640);
      expect(statSync(join(dest, 'site', 'empty')).isDirectory()).toBe(true);
    }
    // -n: no compression; without -C: one cp.recv job with the file's text.
    const plain = await cluster.run('salt-cp', ['-L', 'day1', '-C', '-n', join(src, 'big.txt'), 'plain.txt']);
    expect(plain.stdout).toBe('day1:\n    ----------\n    plain.txt:\n        True\n');
    expect(readFileSync(join(cluster.root, 'work', 'day1', 'plain.txt'), 'utf8')).toBe(big);
    const old = await cluster.run('salt-cp', ['day2', join(src, 'site', 'index.html'), join(cluster.root, 'work', 'day2')]);
    expect(old.stdout).toBe(`day2:\n    ----------\n    ${join(cluster.root, 'work', 'day2', 'index.html')}:\n        True\n`);
    const dir = await cluster.run('salt-cp', ['day2', src, 'x']);
    expect(dir.stdout).toBe(
      `${src} is a directory, only files are supported in non-chunked mode. Use "--chunked" command line argument.\n`,
    );
    expect(dir.code).toBe(1);
  }, 60_000);
});

describe('salt-cp --log-file', () => {
  it("writes Salt's debug line for each chunk and empty directory at --log-file-level debug", async () => {
    const src = join(cluster.root, 'cp-log');
    mkdirSync(join(src, 'empty'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'a\n');
    const log = join(cluster.root, 'salt-cp.log');
    const res = await cluster.run('salt-cp', ['-L', 'day1', '-C', src, 'logged/', '--log-file', log, '--log-file-level', 'debug']);
    expect(res.code).toBe(0);
    const text = await waitForFileText(log, 'Creating empty dir');
    // `[DEBUG   ][<pid>] <message>`, as the other commands' log files.
    const line = (m: string) => new RegExp(`\\[DEBUG   \\]\\[\\d+\\] ${m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`);
    expect(text).toMatch(line(`Copying ${join(src, 'a.txt')} to list target '['day1']' as logged/cp-log/a.txt`));
    expect(text).toMatch(line(`Creating empty dir ${join(src, 'empty')} on list target '['day1']'`));
  }, 30_000);
});

describe('cp.push with file_recv on the master', () => {
  it("writes the minion's file under the master's cachedir/minions/<id>/files", async () => {
    const file = join(cluster.root, 'work', 'day1', 'report.txt');
    const text = 'x'.repeat(300_000); // more than one file_buffer_size chunk (262144)
    writeFileSync(file, text);
    const res = await cluster.salt('day1', 'cp.push', file);
    expect(res.stdout).toBe('day1:\n    True\n');
    const landed = join(cluster.root, 'master', 'var', 'cache', 'salt', 'master', 'minions', 'day1', 'files', file);
    expect(readFileSync(landed, 'utf8')).toBe(text);
    const renamed = await cluster.salt('day1', 'cp.push', file, 'upload_path=/reports/r1.txt');
    expect(renamed.stdout).toBe('day1:\n    True\n');
    expect(
      readFileSync(join(cluster.root, 'master', 'var', 'cache', 'salt', 'master', 'minions', 'day1', 'files', 'reports', 'r1.txt'), 'utf8'),
    ).toBe(text);
    expect((await cluster.salt('day1', 'cp.push', 'relative.txt')).stdout).toBe('day1:\n    False\n');
  }, 30_000);
});
