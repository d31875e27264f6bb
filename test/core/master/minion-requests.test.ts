/**
 * The aes requests of a Salt 3007 minion beyond jobs (file server, master options, mine): unit
 * tests of MinionRequests, then each request over the wire to a real master (in process) as a
 * Salt minion seals it, answered as Salt's AESFuncs answers it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildAesRequest, buildAuthRequest, makeTok, openAesReply, openAuthReply } from '../../../src/core/channel';
import { loadMasterConfig } from '../../../src/core/config/load';
import { createLogging, type Logging } from '../../../src/core/log';
import { Master, type MasterSettings } from '../../../src/core/master/master';
import { MineStore } from '../../../src/core/master/mine-store';
import { MinionRequests } from '../../../src/core/master/minion-requests';
import { decode } from '../../../src/core/protocol/msgpack';
import { RequestClient } from '../../../src/core/transport/zeromq';
import { freePort } from '../../support/ports';

describe('MinionRequests', () => {
  let dir: string;
  let requests: MinionRequests;
  let mine: MineStore;
  const grains: Record<string, Record<string, unknown>> = {
    web1: { os: 'Debian', roles: ['web'] },
    web2: { os: 'Debian', roles: ['web'] },
    db1: { os: 'Rocky', roles: ['db'] },
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'brine-aesfuncs-'));
    mkdirSync(join(dir, 'srv', 'base'), { recursive: true });
    mkdirSync(join(dir, 'srv', 'prod'), { recursive: true });
    mine = new MineStore(join(dir, 'cache'));
    requests = new MinionRequests({
      files: { file_roots: { base: [join(dir, 'srv', 'base')], prod: [join(dir, 'srv', 'prod')] } },
      mine,
      accepted: () => ['web1', 'web2', 'db1', 'nogr'],
      grains: (id) => grains[id],
      options: { state_top: 'mytop.sls', nodegroups: { webs: 'G@roles:web' } },
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("_master_opts: Salt's keys, the master's values over Salt's defaults, env_only for the short form", () => {
    expect(requests.answer('web1', { cmd: '_master_opts' })).toEqual({
      file_roots: { base: [], prod: [] },
      top_file_merging_strategy: 'merge',
      env_order: [],
      default_top: 'base',
      renderer: 'jinja|yaml',
      failhard: false,
      state_top: 'mytop.sls',
      state_top_saltenv: null,
      nodegroups: { webs: 'G@roles:web' },
      state_auto_order: true,
      state_events: false,
      state_aggregate: false,
      jinja_env: {},
      jinja_sls_env: {},
      jinja_lstrip_blocks: false,
      jinja_trim_blocks: false,
    });
    expect(requests.answer('web1', { cmd: '_master_opts', env_only: true })).toEqual({
      file_roots: { base: [], prod: [] },
      top_file_merging_strategy: 'merge',
      env_order: [],
      default_top: 'base',
    });
  });

  it('_master_tops: {} (no master_tops configured), as Salt answers', () => {
    expect(requests.answer('web1', { cmd: '_master_tops', id: 'web1', opts: {} })).toEqual({});
  });

  it('_mine stores in the master cache (merging, or replacing with clear), _mine_get reads it by target', () => {
    expect(requests.answer('web1', { cmd: '_mine', id: 'web1', data: { 'network.ip_addrs': ['10.0.0.1'], 'test.ping': true } })).toBe(true);
    expect(requests.answer('web2', { cmd: '_mine', id: 'web2', data: { 'network.ip_addrs': ['10.0.0.2'] } })).toBe(true);
    expect(requests.answer('db1', { cmd: '_mine', id: 'db1', data: { 'network.ip_addrs': ['10.0.0.3'] } })).toBe(true);
    expect(existsSync(join(dir, 'cache', 'minions', 'web1', 'mine.p'))).toBe(true);
    expect(decode(readFileSync(join(dir, 'cache', 'minions', 'web1', 'mine.p')))).toEqual({
      'network.ip_addrs': ['10.0.0.1'],
      'test.ping': true,
    });

    const get = (load: Record<string, unknown>) => requests.answer('db1', { cmd: '_mine_get', id: 'db1', ...load });
    expect(get({ tgt: '*', fun: 'network.ip_addrs' })).toEqual({ web1: ['10.0.0.1'], web2: ['10.0.0.2'], db1: ['10.0.0.3'] });
    expect(get({ tgt: 'web*', fun: 'network.ip_addrs', tgt_type: 'glob' })).toEqual({ web1: ['10.0.0.1'], web2: ['10.0.0.2'] });
    expect(get({ tgt: 'roles:db', fun: 'network.ip_addrs', tgt_type: 'grain' })).toEqual({ db1: ['10.0.0.3'] });
    expect(get({ tgt: 'G@os:Debian and not web2', fun: 'network.ip_addrs', tgt_type: 'compound' })).toEqual({ web1: ['10.0.0.1'] });
    expect(get({ tgt: 'webs', fun: 'network.ip_addrs', tgt_type: 'nodegroup' })).toEqual({ web1: ['10.0.0.1'], web2: ['10.0.0.2'] });
    expect(get({ tgt: 'web1,db1', fun: 'network.ip_addrs', expr_form: 'list' })).toEqual({ web1: ['10.0.0.1'], db1: ['10.0.0.3'] });
    // Several functions: by function, then minion.
    expect(get({ tgt: 'web1', fun: 'network.ip_addrs,test.ping' })).toEqual({
      'network.ip_addrs': { web1: ['10.0.0.1'] },
      'test.ping': { web1: true },
    });
    expect(get({ tgt: 'web1', fun: ['test.ping'] })).toEqual({ 'test.ping': { web1: true } });
    expect(get({ tgt: '*', fun: 'nothing.here' })).toEqual({});
    expect(get({ tgt: '*', fun: 3 })).toEqual({});
    expect(get({ fun: 'test.ping' })).toEqual({});

    // Merge, then clear.
    requests.answer('web1', { cmd: '_mine', id: 'web1', data: { 'grains.items': { os: 'Debian' } } });
    expect(mine.fetch('web1')).toEqual({ 'network.ip_addrs': ['10.0.0.1'], 'test.ping': true, 'grains.items': { os: 'Debian' } });
    requests.answer('web1', { cmd: '_mine', id: 'web1', data: { 'test.ping': true }, clear: true });
    expect(mine.fetch('web1')).toEqual({ 'test.ping': true });
    expect(requests.answer('web1', { cmd: '_mine', id: 'web1' })).toEqual({});
  });

  it("_mine_get honours a minion-side ACL (allow_tgt) and unwraps the entry's data", () => {
    requests.answer('db1', {
      cmd: '_mine',
      id: 'db1',
      data: { 'secret.fun': { __saltmine_acl__: 1, __data__: 's3cret', allow_tgt: 'web1', allow_tgt_type: 'glob' } },
    });
    expect(requests.answer('web1', { cmd: '_mine_get', id: 'web1', tgt: 'db1', fun: 'secret.fun' })).toEqual({ db1: 's3cret' });
    expect(requests.answer('web2', { cmd: '_mine_get', id: 'web2', tgt: 'db1', fun: 'secret.fun' })).toEqual({});
  });

  it('_mine_delete drops one function of the minion’s own mine, _mine_flush all of it', () => {
    requests.answer('web1', { cmd: '_mine', id: 'web1', data: { a: 1, b: 2 } });
    expect(requests.answer('web1', { cmd: '_mine_delete', id: 'web1', fun: 'a' })).toBe(true);
    expect(mine.fetch('web1')).toEqual({ b: 2 });
    expect(requests.answer('web1', { cmd: '_mine_delete', id: 'web1', fun: 'not-there' })).toBe(true);
    expect(requests.answer('web1', { cmd: '_mine_delete', id: 'web1' })).toEqual({});
    expect(requests.answer('web1', { cmd: '_mine_flush', id: 'web1' })).toBe(true);
    expect(mine.fetch('web1')).toEqual({});
  });

  it("answers commands Salt 3007's master does not expose (_ext_nodes, _empty_dirs, __init__) with {}", () => {
    for (const cmd of ['_ext_nodes', '_empty_dirs', '__init__', 'constructor', 'toString', '_master_state']) {
      expect(requests.answers(cmd)).toBe(false);
      expect(requests.answer('web1', { cmd, id: 'web1' })).toEqual({});
    }
    expect(requests.answer('web1', { cmd: '_file_recv', id: 'web1', path: ['x'], loc: 0, data: '' })).toBe(false);
  });

  it("_file_recv with file_recv: True writes the chunks under cachedir/minions/<id>/files; Salt's refusals", () => {
    const cachedir = join(dir, 'cache');
    const recv = new MinionRequests({
      files: { file_roots: {} },
      mine,
      accepted: () => [],
      grains: () => undefined,
      options: { cachedir, file_recv: true, file_recv_max_size: 1 },
    });
    const chunk = (path: unknown, loc: number, data: Buffer | string) =>
      recv.answer('web1', { cmd: '_file_recv', id: 'web1', path, loc, data });
    expect(chunk(['var', 'log', 'app.log'], 0, Buffer.from('hello '))).toBe(true);
    expect(chunk(['var', 'log', 'app.log'], 6, Buffer.from('world'))).toBe(true);
    const landed = join(cachedir, 'minions', 'web1', 'files', 'var', 'log', 'app.log');
    expect(readFileSync(landed, 'utf8')).toBe('hello world');
    // A new push (loc 0) starts the file again.
    expect(chunk(['var', 'log', 'app.log'], 0, Buffer.from('again'))).toBe(true);
    expect(readFileSync(landed, 'utf8')).toBe('again');
    // Out of the minion's folder, bad pointers, beyond file_recv_max_size (MiB): False, nothing written.
    expect(chunk(['..', '..', 'web2', 'files', 'x'], 0, 'x')).toBe(false);
    expect(chunk(['a', '..', '..', 'x'], 0, 'x')).toBe(false);
    expect(chunk('var/log/x', 0, 'x')).toBe(false);
    expect(chunk(['x'], -1, 'x')).toBe(false);
    expect(chunk(['big'], 1024 * 1024 - 1, Buffer.from('ab'))).toBe(false);
    expect(existsSync(join(cachedir, 'minions', 'web2'))).toBe(false);
    expect(existsSync(join(cachedir, 'minions', 'web1', 'files', 'big'))).toBe(false);
  });
});

describe('the request handler answers each of them over the wire (real master)', () => {
  let root: string;
  let master: Master;
  let logging: Logging;
  let log = '';
  let client: RequestClient;
  let sessionKey: string;
  const keys = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const tok = makeTok(keys.privateKey);

  async function send(load: Record<string, unknown>): Promise<unknown> {
    const req = buildAesRequest({ id: 'pyminion', sessionKey, tok, load: { ...load, id: 'pyminion' } });
    return openAesReply(await client.request(req.bytes, 10_000), sessionKey, req.nonce);
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'brine-aesfuncs-wire-'));
    const srv = join(root, 'srv');
    mkdirSync(join(srv, 'files', 'empty'), { recursive: true });
    writeFileSync(join(srv, 'files', 'motd'), 'hello from brine\n');
    const confDir = join(root, 'etc');
    mkdirSync(confDir, { recursive: true });
    const retPort = await freePort();
    writeFileSync(
      join(confDir, 'master'),
      stringify({
        root_dir: root,
        interface: '127.0.0.1',
        publish_port: await freePort(),
        ret_port: retPort,
        auto_accept: true,
        keysize: 1024,
        worker_threads: 1,
        file_roots: { base: [srv] },
      }),
    );
    logging = createLogging({ level: 'info', console: true, stderr: { write: (t: string) => (log += t) } });
    master = new Master(loadMasterConfig(confDir).config as unknown as MasterSettings, logging.getLogger('salt.master'));
    await master.start();
    client = new RequestClient(`tcp://127.0.0.1:${retPort}`);
    const auth = buildAuthRequest({ id: 'pyminion', publicPem });
    const reply = openAuthReply(await client.request(auth.bytes, 10_000), null, keys.privateKey, auth.nonce);
    if (reply.kind !== 'accepted') throw new Error(`sign-in answered ${reply.kind}`);
    sessionKey = reply.sessionKey;
  });

  afterAll(async () => {
    client?.close();
    await master?.stop();
    await logging?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers the file server requests of cp.get_file, cp.list_master and state runs', async () => {
    const motd = { path: 'files/motd', saltenv: 'base' };
    expect(await send({ cmd: '_file_envs' })).toEqual(['base']);
    expect(await send({ cmd: '_file_list', saltenv: 'base', prefix: '' })).toEqual(['files/motd']);
    expect(await send({ cmd: '_dir_list', saltenv: 'base', prefix: '' })).toEqual(['files', 'files/empty']);
    expect(await send({ cmd: '_file_list_emptydirs', saltenv: 'base', prefix: '' })).toEqual(['files/empty']);
    expect(await send({ cmd: '_symlink_list', saltenv: 'base', prefix: '' })).toEqual({});
    const hash = { hsum: createHash('sha256').update('hello from brine\n').digest('hex'), hash_type: 'sha256' };
    expect(await send({ cmd: '_file_hash', ...motd })).toEqual(hash);
    const [h, stat] = (await send({ cmd: '_file_hash_and_stat', ...motd })) as [unknown, number[]];
    expect(h).toEqual(hash);
    expect(stat[6]).toBe(17);
    expect(await send({ cmd: '_file_find', ...motd })).toMatchObject({ rel: 'files/motd', back: 'roots' });
    const chunk = (await send({ cmd: '_serve_file', ...motd, loc: 0 })) as { data: Buffer; dest: string };
    expect(Buffer.from(chunk.data).toString()).toBe('hello from brine\n');
    expect(chunk.dest).toBe('files/motd');
    expect(await send({ cmd: '_file_hash', path: 'missing', saltenv: 'base' })).toBe('');
  });

  it('answers _master_opts, _master_tops and the mine', async () => {
    expect(await send({ cmd: '_master_opts' })).toMatchObject({ file_roots: { base: [] }, renderer: 'jinja|yaml', state_top: 'top.sls' });
    expect(await send({ cmd: '_master_tops', opts: {} })).toEqual({});
    expect(await send({ cmd: '_mine', data: { 'test.ping': true } })).toBe(true);
    expect(await send({ cmd: '_mine_get', tgt: '*', fun: 'test.ping' })).toEqual({ pyminion: true });
    expect(await send({ cmd: '_mine_delete', fun: 'test.ping' })).toBe(true);
    expect(await send({ cmd: '_mine_get', tgt: '*', fun: 'test.ping' })).toEqual({});
    expect(await send({ cmd: '_mine_flush' })).toBe(true);
  });

  it("refuses other commands with Salt's encrypted {} (a Salt minion reads it), never 'bad load'", async () => {
    expect(await send({ cmd: '_ext_nodes', opts: {} })).toEqual({});
    expect(await send({ cmd: '_empty_dirs', saltenv: 'base' })).toEqual({});
    expect(log).toContain('Requested method not exposed: _ext_nodes');
    expect(log).not.toMatch(/Bad request|HMAC|bad load/);
  });
});
