/**
 * brine minions under a real Salt 3007.10 master (../shared/salt-ref), read with Salt's own CLI
 * (salt, salt-key, salt-run jobs.* and manage.*). One Salt master for the whole file; the tests run
 * in order and build on each other. Every wait is on a log line or a command's answer. The brine
 * minions' events, file-server copies and mine reach Salt's master through Salt's own requests.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { buildClearRequest } from '../../src/core/channel';
import { publicationFromReply, type Publication } from '../../src/core/client/local-client';
import { fingerprint } from '../../src/core/crypto/fingerprint';
import { readRootKey } from '../../src/core/master/root-key';
import { decode } from '../../src/core/protocol/msgpack';
import { ZmtpRequestClient } from '../../src/core/transport/zmtp-request';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import { describeWithSalt, json, runSalt, type SaltDaemon, saltEventStream, startSalt, writeSaltMasterConfig } from '../support/salt-ref';

function jidOf(text: string): string {
  const m = /(\d{20})/.exec(text);
  if (!m) throw new Error(`no jid in: ${text}`);
  return m[1];
}

describeWithSalt('brine minion -> Salt 3007 master', () => {
  /** Only its minion side is used: the brine minions' roots, config and daemons. */
  let cluster: Cluster;
  let masterDir: string;
  let ports: { publish: number; ret: number };
  let master: SaltDaemon;
  /** Salt's own `salt-run state.event` on its master, for the whole file. */
  let events: SaltDaemon;
  let srv: string;
  const salt = (...args: string[]) => runSalt('salt', masterDir, args);
  const saltKey = (...args: string[]) => runSalt('salt-key', masterDir, args);
  const saltRun = (...args: string[]) => runSalt('salt-run', masterDir, args);

  beforeAll(async () => {
    cluster = await Cluster.create();
    ports = { publish: await freePort(), ret: await freePort() };
    srv = join(cluster.root, 'srv-salt');
    mkdirSync(join(srv, 'files', 'empty'), { recursive: true });
    writeFileSync(join(srv, 'files', 'motd'), 'served by salt\n');
    // A state tree on Salt's file server: the brine minion fetches top, SLS and salt:// sources through it.
    writeFileSync(join(srv, 'top.sls'), "base:\n  'bm2':\n    - web\n");
    writeFileSync(
      join(srv, 'web.sls'),
      [
        'motd:',
        '  file.managed:',
        `    - name: ${join(cluster.root, 'state-out', 'motd')}`,
        '    - source: salt://files/motd',
        '    - makedirs: True',
        'greeting:',
        '  file.managed:',
        `    - name: ${join(cluster.root, 'state-out', 'greeting')}`,
        '    - contents: "hello {{ grains[\'id\'] }}"',
        '    - require:',
        '      - file: motd',
        '',
      ].join('\n'),
    );
    // loop_interval 1: Salt's maintenance loop rotates the AES key within a second of a key's deletion.
    masterDir = writeSaltMasterConfig(cluster.root, ports, { keep_jobs_seconds: 3600, file_roots: { base: [srv] }, loop_interval: 1 });
    master = startSalt('salt-master', 'salt-master', masterDir);
    cluster.retPort = ports.ret;
    // The brine minions retry their sign-in until Salt's master answers (4-7 s to start).
    const started = await Promise.all([
      cluster.startMinion({ id: 'bm1', grains: { role: 'web' } }, 'Setting up the Salt Minion'),
      cluster.startMinion(
        { id: 'bm2', grains: { role: 'db' }, config: { mine_functions: { echoed: [{ mine_function: 'test.echo' }, 'from-config'] } } },
        'Setting up the Salt Minion',
      ),
    ]);
    await Promise.all(started.map((m) => m.waitFor('cached the public key', 80_000)));
  }, 90_000);

  afterAll(async () => {
    await events?.stop();
    await Promise.all([...cluster.minions.values()].map((m) => m.stop()));
    await master?.stop();
    rmSync(cluster.root, { recursive: true, force: true });
  });

  it("signs in as pending: Salt's salt-key lists it unaccepted", async () => {
    const listed = json((await saltKey('-L', '--out', 'json')).stdout);
    expect((listed.minions_pre as string[]).sort()).toEqual(['bm1', 'bm2']);
  });

  it('is accepted with salt-key -A and answers test.ping', async () => {
    expect((await saltKey('-A', '-y')).code).toBe(0);
    await Promise.all(['bm1', 'bm2'].map((id) => cluster.minions.get(id)!.waitFor('is ready', 30_000)));
    expect(json((await salt('*', 'test.ping', '--out', 'json', '--static', '-t', '20')).stdout)).toEqual({ bm1: true, bm2: true });
  });

  it('test.arg receives every argument type as Salt parses it', async () => {
    const res = await salt('bm1', 'test.arg', '1', '2.5', 'true', 'null', '[1, two]', '{a: b}', 'word', 'key=value', '--out', 'json');
    const ret = json(res.stdout).bm1 as { args: unknown[]; kwargs: Record<string, unknown> };
    expect(ret.args).toEqual([1, 2.5, true, null, [1, 'two'], { a: 'b' }, 'word']);
    expect(ret.kwargs).toMatchObject({ key: 'value', __pub_fun: 'test.arg', __pub_tgt: 'bm1' });
  });

  it('cmd.run, and grains targets with -G and -C', async () => {
    expect((await salt('bm1', 'cmd.run', 'echo hello from brine')).stdout).toBe('bm1:\n    hello from brine\n');
    const grains = json((await salt('bm2', 'grains.items', '--out', 'json')).stdout).bm2 as Record<string, unknown>;
    expect(grains).toMatchObject({ id: 'bm2', role: 'db' });
    expect(Object.keys(json((await salt('-G', 'role:web', 'test.ping', '--out', 'json', '--static')).stdout))).toEqual(['bm1']);
    expect(Object.keys(json((await salt('-C', 'G@role:db or bm1', 'test.ping', '--out', 'json', '--static')).stdout)).sort()).toEqual([
      'bm1',
      'bm2',
    ]);
  });

  it('--async, then salt-run jobs.lookup_jid and jobs.list_jobs', async () => {
    const jid = jidOf((await salt('bm2', 'test.echo', 'later', '--async')).stdout);
    await master.waitFor(`Got return from bm2 for job ${jid}`, 30_000);
    expect((await saltRun('jobs.lookup_jid', jid)).stdout).toBe('bm2:\n    later\n');
    const jobs = json((await saltRun('jobs.list_jobs', '--out', 'json')).stdout);
    expect(jobs[jid]).toMatchObject({ Function: 'test.echo', Target: 'bm2' });
  });

  it("brine's ZMTP request client publishes through Salt's request port (pyzmq's ROUTER) with Salt's root key", async () => {
    // Salt's master writes its root key in its cachedir (root_dir + /var/cache/salt/master) at start.
    const key = readRootKey(join(masterDir, 'var', 'cache', 'salt', 'master'));
    const publishLoad = (fun: string, arg: unknown[], rootKey = key) => ({
      cmd: 'publish',
      tgt: 'bm1',
      fun,
      arg,
      key: rootKey,
      tgt_type: 'glob',
      ret: '',
      jid: '',
      kwargs: { show_timeout: true, show_jid: false, delimiter: ':' },
      user: userInfo().username,
    });
    const client = new ZmtpRequestClient(`tcp://127.0.0.1:${ports.ret}`);
    // A long argument: the request goes out in a long (8-byte size) frame.
    const long = 'x'.repeat(1000);
    let ping: Publication;
    let echo: Publication;
    try {
      // Three requests on one connection, one after the other as a REQ socket sends them.
      ping = publicationFromReply(await client.request(buildClearRequest(publishLoad('test.ping', [])), 10_000));
      echo = publicationFromReply(await client.request(buildClearRequest(publishLoad('test.echo', [long])), 10_000));
      // A wrong root key: Salt's master answers with its bare authentication error (no clear envelope).
      const refused = await client.request(buildClearRequest(publishLoad('test.ping', [], 'not-the-root-key')), 10_000);
      expect(decode(refused)).toEqual({ error: { name: 'AuthenticationError', message: 'Authentication error occurred.' } });
      expect(() => publicationFromReply(refused)).toThrow(
        expect.objectContaining({ code: 'PUBLISH_REFUSED', message: 'AuthenticationError: Authentication error occurred.' }),
      );
    } finally {
      client.close();
    }
    // Salt's publish port is no ROUTER: libzmq drops the connection at the handshake, and the request fails
    // at once rather than at its timeout.
    const wrongPeer = new ZmtpRequestClient(`tcp://127.0.0.1:${ports.publish}`);
    try {
      await expect(wrongPeer.request(buildClearRequest(publishLoad('test.ping', [])), 10_000)).rejects.toMatchObject({ code: 'TRANSPORT' });
    } finally {
      wrongPeer.close();
    }
    expect(ping.jid).toMatch(/^\d{20}$/);
    expect(ping.minions).toContain('bm1');
    expect(echo.jid).toMatch(/^\d{20}$/);
    expect(echo.jid).not.toBe(ping.jid);
    // The jobs ran: Salt's job cache holds bm1's returns (asked again until they are there, or the deadline).
    const lookup = async (jid: string): Promise<Record<string, unknown>> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const found = json((await saltRun('jobs.lookup_jid', jid, '--out', 'json')).stdout);
        if ('bm1' in found || Date.now() > deadline) return found;
      }
    };
    expect(await Promise.all([lookup(ping.jid), lookup(echo.jid)])).toEqual([{ bm1: true }, { bm1: long }]);
  });

  it('saltutil.find_job sees a running job', async () => {
    // A job that runs until the test releases it (a file appears): no kill, no clock.
    const gate = join(cluster.root, 'find-job-gate');
    const wait = `until [ -e ${gate} ]; do sleep 0.1; done; echo released`;
    const jid = jidOf((await salt('bm1', 'cmd.run', wait, '--async')).stdout);
    await cluster.minions.get('bm1')!.waitFor(`Executing command cmd.run with jid ${jid}`, 20_000);
    const found = json((await salt('bm1', 'saltutil.find_job', jid, '--out', 'json')).stdout).bm1 as Record<string, unknown>;
    expect(found).toMatchObject({ jid, fun: 'cmd.run', arg: [wait] });
    writeFileSync(gate, '');
    await master.waitFor(`Got return from bm1 for job ${jid}`, 30_000);
    expect((await saltRun('jobs.lookup_jid', jid)).stdout).toBe('bm1:\n    released\n');
  });

  it("event.send, event.fire_master and event.fire (tag fire_master) reach Salt's event bus (salt-run state.event)", async () => {
    events = saltEventStream(masterDir);
    // Listening once a ping's return shows up on it (a retry on what is observed, not a clock).
    for (let i = 0; i < 20 && !/salt\/job\/\d+\/ret\/bm2/.test(events.log); i++) await salt('bm2', 'test.ping', '-t', '20');
    expect(json((await salt('bm2', 'event.send', 'interop/brine', '{"from": "brine"}', 'extra=1', '--out', 'json')).stdout)).toEqual({
      bm2: true,
    });
    await events.waitFor(/interop\/brine\t[^\n]*"from": "brine"/, 30_000);
    const line = events.log.split('\n').find((l) => l.startsWith('interop/brine\t'))!;
    // The whole request load, the event's data under `data` (keyword arguments and job data merged in).
    const fired = json(line.slice(line.indexOf('\t') + 1));
    expect(fired).toMatchObject({
      cmd: '_minion_event',
      id: 'bm2',
      tag: 'interop/brine',
      data: { from: 'brine', extra: 1, __pub_fun: 'event.send' },
    });
    // event.fire_master, and event.fire on the brine minion's own bus with the tag it forwards.
    const direct = await Promise.all([
      salt('bm2', 'event.fire_master', '{"how": "fire_master"}', 'interop/direct', '--out', 'json'),
      salt('bm2', 'event.fire', '{"tag": "interop/forwarded", "data": {"how": "local bus"}}', 'fire_master', '--out', 'json'),
      salt('bm2', 'event.fire', '{"stays": "on the minion"}', 'interop/local', '--out', 'json'),
    ]);
    expect(direct.map((r) => json(r.stdout))).toEqual([{ bm2: true }, { bm2: true }, { bm2: true }]);
    await events.waitFor(/interop\/direct\t[^\n]*"how": "fire_master"/, 30_000);
    await events.waitFor(/interop\/forwarded\t[^\n]*"how": "local bus"/, 30_000);
    // Its publication mentions the tag; no event carries it.
    expect(events.log).not.toMatch(/^interop\/local\t/m);
  });

  it("cp.get_file, cp.get_dir, cp.get_url, cp.list_master, cp.list_master_dirs and cp.hash_file through Salt's file server", async () => {
    const dest = join(cluster.root, 'got-motd');
    const sha = createHash('sha256').update('served by salt\n').digest('hex');
    // Independent calls at once: Salt's CLI costs a Python start each.
    const [got, files, dirs, hash, missing] = await Promise.all([
      salt('bm2', 'cp.get_file', 'salt://files/motd', dest),
      salt('bm2', 'cp.list_master', '--out', 'json'),
      salt('bm2', 'cp.list_master_dirs', '--out', 'json'),
      salt('bm2', 'cp.hash_file', 'salt://files/motd', '--out', 'json'),
      salt('bm2', 'cp.get_file', 'salt://files/missing', join(cluster.root, 'nothing')),
    ]);
    expect(got.stdout).toBe(`bm2:\n    ${dest}\n`);
    expect(readFileSync(dest, 'utf8')).toBe('served by salt\n');
    expect(json(files.stdout).bm2).toEqual(['files/motd', 'top.sls', 'web.sls']);
    expect(json(dirs.stdout).bm2).toEqual(['files', 'files/empty']);
    expect(json(hash.stdout).bm2).toEqual({ hsum: sha, hash_type: 'sha256' });
    expect(missing.stdout).toBe('bm2:\n');
    // cp.get_dir (_file_list and _file_list_emptydirs) and cp.get_url of a salt:// URL, to a file and as text.
    const copy = join(cluster.root, 'got-dir');
    const viaUrl = join(cluster.root, 'url-motd');
    const [dir, url, text] = await Promise.all([
      salt('bm2', 'cp.get_dir', 'salt://files', copy, '--out', 'json'),
      salt('bm2', 'cp.get_url', 'salt://files/motd', viaUrl),
      salt('bm2', 'cp.get_url', 'salt://files/motd', 'dest=None', '--out', 'json'),
    ]);
    expect(json(dir.stdout).bm2).toEqual([join(copy, 'files', 'empty'), join(copy, 'files', 'motd')]);
    expect(readFileSync(join(copy, 'files', 'motd'), 'utf8')).toBe('served by salt\n');
    expect(url.stdout).toBe(`bm2:\n    ${viaUrl}\n`);
    expect(json(text.stdout).bm2).toBe('served by salt\n');
  });

  it("state.apply runs the highstate of Salt's file server (top file, SLS, salt:// source, Jinja)", async () => {
    type StateRet = Record<string, { result: boolean; changes: Record<string, unknown>; __id__: string }>;
    const res = await salt('bm2', 'state.apply', '--out', 'json', '-t', '60');
    const ret = json(res.stdout).bm2 as StateRet;
    expect(
      Object.values(ret)
        .map((r) => [r.__id__, r.result])
        .sort(),
    ).toEqual([
      ['greeting', true],
      ['motd', true],
    ]);
    expect(readFileSync(join(cluster.root, 'state-out', 'motd'), 'utf8')).toBe('served by salt\n');
    expect(readFileSync(join(cluster.root, 'state-out', 'greeting'), 'utf8')).toBe('hello bm2\n');
    expect(res.code).toBe(0);
  });

  it("mine.send stores in Salt's mine: mine.get on the minion and Salt's salt-run mine.get read it, mine.delete drops it", async () => {
    expect(json((await salt('bm2', 'mine.send', 'test.echo', 'mined', '--out', 'json')).stdout)).toEqual({ bm2: true });
    const [onMinion, onMaster] = await Promise.all([
      salt('bm2', 'mine.get', '*', 'test.echo', '--out', 'json'),
      saltRun('mine.get', '*', 'test.echo', '--out', 'json'),
    ]);
    expect(json(onMinion.stdout)).toEqual({ bm2: { bm2: 'mined' } });
    expect(json(onMaster.stdout)).toEqual({ bm2: 'mined' });
    expect(json((await salt('bm2', 'mine.delete', 'test.echo', '--out', 'json')).stdout)).toEqual({ bm2: true });
    expect(json((await saltRun('mine.get', '*', 'test.echo', '--out', 'json')).stdout)).toEqual({});
  });

  it("mine_functions of the minion's config reach Salt's mine on start; mine.update sends them and given ones again", async () => {
    await cluster.minions.get('bm2')!.waitFor('Mine updated from mine_functions', 30_000);
    expect(json((await saltRun('mine.get', 'bm2', 'echoed', '--out', 'json')).stdout)).toEqual({ bm2: 'from-config' });
    expect(json((await salt('bm2', 'mine.update', 'mine_functions=["test.true"]', '--out', 'json')).stdout)).toEqual({ bm2: true });
    const [echoed, given] = await Promise.all([
      saltRun('mine.get', 'bm2', 'echoed', '--out', 'json'),
      saltRun('mine.get', 'bm2', 'test.true', '--out', 'json'),
    ]);
    expect(json(echoed.stdout)).toEqual({ bm2: 'from-config' });
    expect(json(given.stdout)).toEqual({ bm2: true });
  });

  it("signs in again after Salt's master rotates its AES key (another key deleted) and runs the next job", async () => {
    const reauth = 'Publication could not be decrypted: signing in again for the new key';
    const before = cluster.minions.get('bm2')!.count(reauth);
    await cluster.startMinion({ id: 'gone', grains: {} }, 'cached the public key');
    expect((await saltKey('-a', 'gone', '-y')).code).toBe(0);
    await cluster.minions.get('gone')!.waitFor('is ready', 30_000);
    await cluster.minions.get('gone')!.stop();
    cluster.minions.delete('gone');
    await saltKey('-d', 'gone', '-y');
    // Salt's master announces the rotation on its event bus (tag "key").
    await events.waitFor(/^key\t[^\n]*"rotate_aes_key": true/m, 30_000);
    expect(json((await salt('bm2', 'test.ping', '--out', 'json', '--static', '-t', '20')).stdout)).toEqual({ bm2: true });
    // It read the ping only after signing in again for the new key.
    expect(cluster.minions.get('bm2')!.count(reauth)).toBeGreaterThan(before);
  });

  it('salt-run manage.up and manage.status count it up', async () => {
    expect(json((await saltRun('manage.up', '--out', 'json')).stdout)).toEqual(['bm1', 'bm2']);
    expect(json((await saltRun('manage.status', '--out', 'json')).stdout)).toEqual({ up: ['bm1', 'bm2'], down: [] });
  });

  it("Salt's salt-key -f prints the fingerprint of the brine minion's own key", async () => {
    const pub = readFileSync(join(cluster.root, 'minions', 'bm1', 'etc', 'salt', 'pki', 'minion', 'minion.pub'), 'utf8');
    expect((await saltKey('-f', 'bm1')).stdout).toContain(`bm1:  ${fingerprint(pub)}`);
  });

  it('once deleted it cannot read the next job: it signs in again and waits as pending', async () => {
    const bm1 = cluster.minions.get('bm1')!;
    const before = bm1.count('cached the public key');
    await saltKey('-d', 'bm1', '-y');
    expect(json((await salt('*', 'test.ping', '--out', 'json', '--static')).stdout)).toEqual({ bm2: true });
    await bm1.waitFor(new RegExp(`(cached the public key[\\s\\S]*){${before + 1}}`), 30_000);
    expect(json((await saltKey('-L', '--out', 'json')).stdout).minions_pre).toEqual(['bm1']);
  });

  it('exits as Salt does once rejected', async () => {
    await saltKey('-r', 'bm1', '-y');
    await cluster.minions.get('bm1')!.waitFor("The Salt Master has rejected this minion's public key", 30_000);
  });
});
