/**
 * A real Salt 3007.10 minion (../shared/salt-ref) under a brine master, read with brine's CLI.
 * One Salt minion and one brine master for the whole file (the tests run in order and build on
 * each other: sign-in, accept, jobs, files, mine, rotation, delete, reject). Every wait is on a
 * log line or a command's answer, never on a clock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Daemon, REPO } from '../support/cluster';
import { describeWithSalt, json, runSalt, type SaltDaemon, saltLog, startSalt, writeSaltMinionConfig } from '../support/salt-ref';

function jidOf(text: string): string {
  const m = /(\d{20})/.exec(text);
  if (!m) throw new Error(`no jid in: ${text}`);
  return m[1];
}

describeWithSalt('Salt 3007 minion -> brine master', () => {
  let cluster: Cluster;
  let srv: string;
  /** Where the Salt minion's states write (outside the file roots). */
  let out: string;
  let pyDir: string;
  let py: SaltDaemon;

  beforeAll(async () => {
    srv = mkdtempSync(join(tmpdir(), 'brine-interop-srv-'));
    out = mkdtempSync(join(tmpdir(), 'brine-interop-out-'));
    mkdirSync(join(srv, 'files', 'empty'), { recursive: true });
    writeFileSync(join(srv, 'files', 'motd'), 'served by brine\n');
    // A state tree the Salt minion compiles itself from brine's file server (top, SLS, salt:// source, template).
    writeFileSync(join(srv, 'top.sls'), "base:\n  'pyminion':\n    - web\n");
    writeFileSync(
      join(srv, 'web.sls'),
      [
        'motd:',
        '  file.managed:',
        `    - name: ${join(out, 'motd')}`,
        '    - source: salt://files/motd',
        '    - makedirs: True',
        'greeting:',
        '  file.managed:',
        `    - name: ${join(out, 'greeting')}`,
        '    - contents: "hello {{ grains[\'id\'] }}"',
        '    - require:',
        '      - file: motd',
        '',
      ].join('\n'),
    );
    cluster = await Cluster.create({ file_roots: { base: [srv] }, gather_job_timeout: 5, timeout: 10 });
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'bm1', grains: { role: 'brine' } }]);
    pyDir = writeSaltMinionConfig(cluster.root, 'pyminion', cluster.retPort, {
      grains: { role: 'py' },
      mine_functions: { echoed: [{ mine_function: 'test.echo' }, 'from-config'] },
    });
    py = startSalt('pyminion', 'salt-minion', pyDir);
  }, 60_000);

  afterAll(async () => {
    await py?.stop();
    await cluster?.stop();
    rmSync(srv, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('signs in as pending', async () => {
    await cluster.master!.waitFor('New public key for pyminion placed in pending', 30_000);
    const listed = await cluster.saltKey('-L');
    expect(listed.stdout).toMatch(/Unaccepted Keys:\npyminion\n/);
  });

  it('is accepted with salt-key -a and answers test.ping', async () => {
    expect((await cluster.saltKey('-a', 'pyminion', '-y')).code).toBe(0);
    await py.waitFor('Minion is ready to receive requests!', 30_000);
    expect(await cluster.salt('pyminion', 'test.ping')).toMatchObject({ code: 0, stdout: 'pyminion:\n    True\n' });
  });

  it('test.arg receives every argument type as Salt parses it', async () => {
    const res = await cluster.salt(
      'pyminion',
      'test.arg',
      '1',
      '2.5',
      'true',
      'null',
      '[1, two]',
      '{a: b}',
      'word',
      '*',
      'key=value',
      'n=3',
      '--out',
      'json',
    );
    const ret = json(res.stdout).pyminion as { args: unknown[]; kwargs: Record<string, unknown> };
    expect(ret.args).toEqual([1, 2.5, true, null, [1, 'two'], { a: 'b' }, 'word', '*']);
    expect(ret.kwargs).toMatchObject({ key: 'value', n: 3, __pub_fun: 'test.arg', __pub_tgt: 'pyminion' });
  });

  it('cmd.run runs a shell command', async () => {
    expect(await cluster.salt('pyminion', 'cmd.run', 'echo hello from python')).toMatchObject({
      code: 0,
      stdout: 'pyminion:\n    hello from python\n',
    });
  });

  it('grains.items, and targets on them: glob, -G, -C', async () => {
    const grains = json((await cluster.salt('pyminion', 'grains.items', '--out', 'json')).stdout).pyminion as Record<string, unknown>;
    expect(grains).toMatchObject({ id: 'pyminion', role: 'py', saltversion: '3007.10' });
    const ids = async (...args: string[]) =>
      Object.keys(json((await cluster.salt(...args, 'test.ping', '--out', 'json', '--static')).stdout)).sort();
    expect(await ids('py*')).toEqual(['pyminion']);
    expect(await ids('*')).toEqual(['bm1', 'pyminion']);
    expect(await ids('-G', 'role:py')).toEqual(['pyminion']);
    expect(await ids('-G', 'saltversion:3007.*')).toContain('pyminion');
    expect(await ids('-C', 'G@role:py or bm*')).toEqual(['bm1', 'pyminion']);
    expect((await cluster.salt('-C', 'G@role:py and not pyminion', 'test.ping')).stdout).toContain('No minions matched the target');
  });

  it('--async, then jobs.lookup_jid reads the return from the job cache', async () => {
    const started = await cluster.salt('pyminion', 'test.echo', 'later', '--async');
    const jid = jidOf(started.stdout);
    await cluster.master!.waitFor(`Got return from pyminion for job ${jid}`);
    const looked = await cluster.run('salt-run', ['jobs.lookup_jid', jid]);
    expect(looked.stdout).toBe('pyminion:\n    later\n');
  });

  it('saltutil.find_job sees a running job', async () => {
    // A job that runs until the test releases it (a file appears): no kill, no clock.
    const gate = join(cluster.root, 'find-job-gate');
    const wait = `until [ -e ${gate} ]; do sleep 0.1; done; echo released`;
    const jid = jidOf((await cluster.salt('pyminion', 'cmd.run', wait, '--async')).stdout);
    await py.waitFor(new RegExp(`Executing command '?cmd\\.run'? with jid ${jid}`), 20_000);
    const found = json((await cluster.salt('pyminion', 'saltutil.find_job', jid, '--out', 'json')).stdout).pyminion as Record<
      string,
      unknown
    >;
    expect(found).toMatchObject({ jid, fun: 'cmd.run', arg: [wait] });
    writeFileSync(gate, '');
    await cluster.master!.waitFor(`Got return from pyminion for job ${jid}`, 30_000);
    expect((await cluster.run('salt-run', ['jobs.lookup_jid', jid])).stdout).toBe('pyminion:\n    released\n');
  });

  it("fires its events on brine's event bus: event.send, event.fire_master, event.fire forwarded by its minion", async () => {
    const stream = new Daemon(
      'state.event',
      spawn(process.execPath, [join(REPO, 'bin', 'salt-run'), '-c', cluster.masterDir, 'state.event'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    try {
      // Listening once a ping shows up on it (a retry on what is observed).
      for (let i = 0; i < 20 && !/salt\/job\/\d+\/ret\/pyminion/.test(stream.log); i++) await cluster.salt('pyminion', 'test.ping');
      const sent = await cluster.salt('pyminion', 'event.send', 'interop/custom', '{"from": "python"}');
      expect(sent.stdout).toContain('True');
      await stream.waitFor(/interop\/custom\t[^\n]*"from": "python"/);
      // event.fire_master, and event.fire on the Salt minion's own bus with the tag its minion forwards.
      const fired = await Promise.all([
        cluster.salt('pyminion', 'event.fire_master', '{"how": "fire_master"}', 'interop/direct', '--out', 'json'),
        cluster.salt(
          'pyminion',
          'event.fire',
          '{"tag": "interop/forwarded", "data": {"how": "local bus"}, "events": null, "pretag": null}',
          'fire_master',
          '--out',
          'json',
        ),
      ]);
      expect(fired.map((r) => json(r.stdout))).toEqual([{ pyminion: true }, { pyminion: true }]);
      await stream.waitFor(/interop\/direct\t[^\n]*"how": "fire_master"/);
      await stream.waitFor(/interop\/forwarded\t[^\n]*"how": "local bus"/);
    } finally {
      await stream.stop();
    }
  });

  it("salt-key -f prints the fingerprint Salt's own key.finger gives on the minion side", async () => {
    const ours = await cluster.saltKey('-f', 'pyminion');
    const theirs = await runSalt('salt-call', pyDir, ['--local', 'key.finger', '--out', 'json']);
    const fp = (json(theirs.stdout).local as string).trim();
    expect(fp).toMatch(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/);
    expect(ours.stdout).toContain(`pyminion:  ${fp}`);
  });

  it("cp.get_file, cp.get_dir, cp.get_url, cp.list_master, cp.list_master_dirs and cp.hash_file through brine's file server", async () => {
    const dest = join(cluster.root, 'got-motd');
    expect((await cluster.salt('pyminion', 'cp.get_file', 'salt://files/motd', dest)).stdout).toBe(`pyminion:\n    ${dest}\n`);
    expect(readFileSync(dest, 'utf8')).toBe('served by brine\n');
    expect(json((await cluster.salt('pyminion', 'cp.list_master', '--out', 'json')).stdout).pyminion).toEqual([
      'files/motd',
      'top.sls',
      'web.sls',
    ]);
    expect(json((await cluster.salt('pyminion', 'cp.list_master_dirs', '--out', 'json')).stdout).pyminion).toEqual([
      'files',
      'files/empty',
    ]);
    expect(json((await cluster.salt('pyminion', 'cp.hash_file', 'salt://files/motd', '--out', 'json')).stdout).pyminion).toMatchObject({
      hash_type: 'sha256',
    });
    expect((await cluster.salt('pyminion', 'cp.get_file', 'salt://files/missing', join(cluster.root, 'nothing'))).stdout).toBe(
      'pyminion:\n',
    );
    // cp.get_dir (_file_list and _file_list_emptydirs) and cp.get_url of a salt:// URL.
    const copy = join(cluster.root, 'got-dir');
    expect(json((await cluster.salt('pyminion', 'cp.get_dir', 'salt://files', copy, '--out', 'json')).stdout).pyminion).toEqual([
      join(copy, 'files', 'empty'),
      join(copy, 'files', 'motd'),
    ]);
    expect(readFileSync(join(copy, 'files', 'motd'), 'utf8')).toBe('served by brine\n');
    const viaUrl = join(cluster.root, 'url-motd');
    expect((await cluster.salt('pyminion', 'cp.get_url', 'salt://files/motd', viaUrl)).stdout).toBe(`pyminion:\n    ${viaUrl}\n`);
    expect(readFileSync(viaUrl, 'utf8')).toBe('served by brine\n');
  });

  it("mine.send and mine.update (mine_functions) store in brine's mine, mine.get reads it by target", async () => {
    expect((await cluster.salt('pyminion', 'mine.send', 'test.echo', 'mined', '--out', 'json')).stdout).toContain('true');
    const got = json((await cluster.salt('pyminion', 'mine.get', '*', 'test.echo', '--out', 'json')).stdout);
    expect(got).toEqual({ pyminion: { pyminion: 'mined' } });
    // mine.update runs the minion's mine_functions (its config) and stores them the same way.
    expect(json((await cluster.salt('pyminion', 'mine.update', '--out', 'json')).stdout)).toEqual({ pyminion: true });
    expect(json((await cluster.salt('pyminion', 'mine.get', 'pyminion', 'echoed', '--out', 'json')).stdout)).toEqual({
      pyminion: { pyminion: 'from-config' },
    });
  });

  it("state.apply and state.highstate compile and run a state tree from brine's file server", async () => {
    type StateRet = Record<string, { result: boolean; changes: Record<string, unknown>; __id__: string }>;
    const applied = await cluster.salt('pyminion', 'state.apply', 'web', '--out', 'json', '-t', '60');
    const first = json(applied.stdout).pyminion as StateRet;
    expect(
      Object.values(first)
        .map((r) => [r.__id__, r.result])
        .sort(),
    ).toEqual([
      ['greeting', true],
      ['motd', true],
    ]);
    expect(first[`file_|-motd_|-${join(out, 'motd')}_|-managed`].changes).toMatchObject({ diff: 'New file' });
    expect(readFileSync(join(out, 'motd'), 'utf8')).toBe('served by brine\n');
    expect(readFileSync(join(out, 'greeting'), 'utf8')).toBe('hello pyminion\n');
    // The highstate (top.sls) again: same states, nothing left to change.
    const again = json((await cluster.salt('pyminion', 'state.highstate', '--out', 'json', '-t', '60')).stdout).pyminion as StateRet;
    expect(
      Object.values(again)
        .map((r) => [r.__id__, r.result, r.changes])
        .sort(),
    ).toEqual([
      ['greeting', true, {}],
      ['motd', true, {}],
    ]);
  });

  it('signs in again after the publish key rotates (another minion deleted) and runs the next job', async () => {
    const rotations = cluster.master!.count('Rotating AES key');
    await cluster.startAccepted([{ id: 'gone', grains: {} }]);
    await cluster.saltKey('-d', 'gone', '-y');
    await cluster.master!.waitFor(new RegExp(`(Rotating AES key[\\s\\S]*){${rotations + 1}}`));
    await cluster.minions.get('gone')!.stop();
    expect(await cluster.salt('pyminion', 'test.ping')).toMatchObject({ code: 0, stdout: 'pyminion:\n    True\n' });
  });

  it('once deleted it cannot read the next job: it signs in again and waits as pending', async () => {
    const pending = cluster.master!.count('New public key for pyminion placed in pending');
    await cluster.saltKey('-d', 'pyminion', '-y');
    const res = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
    expect(Object.keys(json(res.stdout))).toEqual(['bm1']);
    await cluster.master!.waitFor(new RegExp(`(New public key for pyminion placed in pending[\\s\\S]*){${pending + 1}}`), 30_000);
    expect((await cluster.saltKey('-L')).stdout).toMatch(/Unaccepted Keys:\npyminion\n/);
  });

  it('is told it is rejected after salt-key -r', async () => {
    await cluster.saltKey('-r', 'pyminion', '-y');
    await cluster.master!.waitFor('Public key rejected for pyminion', 30_000);
    await py.waitFor("The Salt Master has rejected this minion's public key", 30_000);
  });

  it('answered every request of the Salt minion: no bad load, HMAC or unexposed-method lines', () => {
    expect(cluster.master!.log).not.toMatch(/Bad request|HMAC|bad load|not exposed|Request handling failed/);
    expect(readFileSync(saltLog(pyDir, 'minion'), 'utf8')).not.toMatch(
      /message authentication failed|Some exception handling minion payload/,
    );
  });
});
