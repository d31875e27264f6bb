/**
 * The modules that talk to the master (event, cp, mine) through MasterLink: the loads they send
 * are Salt 3007's own (salt/modules/event.py, salt/fileclient.py, salt/modules/mine.py). A master
 * in memory answers them; test/interop proves the same modules against a real Salt master.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MasterFiles } from '../../../src/plugins/services/extension-sync';
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { MasterLink } from '../../../src/plugins/services/master-link';
import { MinionEventBus } from '../../../src/plugins/services/minion-events';
import { freePort } from '../../support/ports';
import { StreamLogger } from '../../../src/plugins/services/logger';
import type { MinionEvent } from '../../../src/plugins/api/minion-events';

type Load = Record<string, unknown>;

const FILES: Record<string, string> = {
  'files/motd': 'hello\n',
  'files/conf/app.conf': 'x=1\n',
  'filesystem.txt': 'not in files/\n',
  'tpl/motd.j2': "{{ grains.os }} says {{ greeting }}{{ salt['test.echo'](' twice') }} as {{ pillar.role }}\n",
  'tpl/broken.j2': '{{ nosuch.attr }}\n',
  'top.sls': 'base: {}\n',
  'web/init.sls': '{}\n',
  'web/site.sls': '{}\n',
};

/** The same files for the minion's file cache (cp.cache_file and what uses it). */
const MASTER_FILES: MasterFiles = {
  async list(_saltenv, prefix) {
    return Object.keys(FILES).filter((p) => p.startsWith(prefix));
  },
  async fetch(_saltenv, path, dest) {
    if (FILES[path] === undefined) return false;
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, FILES[path]);
    return true;
  },
};

/** A master in memory: records every load, answers as Salt's master does. */
function fakeMaster() {
  const loads: Load[] = [];
  const mine: Record<string, unknown> = {};
  const answer = (load: Load): unknown => {
    switch (load.cmd) {
      case '_minion_event':
        return null;
      case '_file_hash':
        return FILES[load.path as string] === undefined ? '' : { hsum: 'abc', hash_type: 'sha256' };
      case '_serve_file': {
        const body = FILES[load.path as string];
        if (body === undefined) return { data: '', dest: '' };
        return { data: Buffer.from(body).subarray(load.loc as number), dest: load.path };
      }
      case '_file_list':
        return Object.keys(FILES).filter((p) => p.startsWith(load.prefix as string));
      case '_file_list_emptydirs':
        return ['files/empty', 'filesx'].filter((p) => p.startsWith(load.prefix as string));
      case '_dir_list':
        return ['files'];
      case '_mine':
        Object.assign(mine, load.data);
        return true;
      case '_mine_get':
        return Object.hasOwn(mine, load.fun as string) ? { minion: mine[load.fun as string], other: 'x' } : {};
      case '_mine_delete':
        return delete mine[load.fun as string];
      default:
        return {};
    }
  };
  return {
    loads,
    link: new MasterLink(async (load) => {
      loads.push(load);
      return answer(load);
    }),
  };
}

const tmp = mkdtempSync(join(tmpdir(), 'brine-master-modules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('event, cp and mine over the master link', async () => {
  const master = fakeMaster();
  const cachedir = join(tmp, 'link-cache');
  const h = await createHarness({ masterLink: master.link, grains: { os: 'Debian', id: 'minion' }, config: { cachedir } });
  const lastLoad = () => master.loads[master.loads.length - 1];

  it("event.send fires _minion_event with Salt's data: keyword arguments, then data over them", async () => {
    const res = await h.call('event.send', ['app/done', { a: 1, b: 'data wins' }], { b: 'kwarg', with_grains: ['os'] });
    expect(res.return).toBe(true);
    const load = lastLoad();
    expect(load).toMatchObject({ cmd: '_minion_event', tag: 'app/done', pretag: null });
    expect(load.data).toMatchObject({ a: 1, b: 'data wins', grains: { os: 'Debian' }, __pub_fun: 'event.send' });
  });

  it('event.fire_master sends its data as it is', async () => {
    expect((await h.call('event.fire_master', ['plain text', 'app/raw'])).return).toBe(true);
    expect(lastLoad()).toMatchObject({ cmd: '_minion_event', tag: 'app/raw', data: 'plain text' });
  });

  it("cp.get_file asks _file_hash, then _serve_file until an empty chunk; '' for a missing file, False for a missing directory", async () => {
    const dest = join(tmp, 'motd');
    expect((await h.call('cp.get_file', ['salt://files/motd', dest])).return).toBe(dest);
    expect(readFileSync(dest, 'utf8')).toBe('hello\n');
    expect(master.loads.slice(-3).map((l) => [l.cmd, l.loc])).toEqual([
      ['_file_hash', undefined],
      ['_serve_file', 0],
      ['_serve_file', 6],
    ]);
    expect((await h.call('cp.get_file', ['salt://files/missing', join(tmp, 'x')])).return).toBe('');
    expect((await h.call('cp.get_file', ['salt://files/motd', join(tmp, 'no', 'dir', 'motd')])).return).toBe(false);
    expect((await h.call('cp.get_file', ['salt://files/motd?saltenv=dev', `${tmp}/`], { makedirs: true })).return).toBe(join(tmp, 'motd'));
    expect(lastLoad()).toMatchObject({ saltenv: 'dev' });
    const bad = await h.call('cp.get_file', ['/etc/passwd', join(tmp, 'p')]);
    expect(bad.success).toBe(false);
    expect(String(bad.return)).toContain('salt://');
    expect(existsSync(join(tmp, 'p'))).toBe(false);
  });

  it("cp.get_dir copies a directory with its empty directories into dest, as Salt's fileclient does", async () => {
    const dest = join(tmp, 'copy');
    const got = (await h.call('cp.get_dir', ['salt://files/', dest])).return;
    expect(got).toEqual([join(dest, 'files/conf/app.conf'), join(dest, 'files/empty'), join(dest, 'files/motd')]);
    expect(readFileSync(join(dest, 'files/conf/app.conf'), 'utf8')).toBe('x=1\n');
    // salt://files/conf lands as dest/conf; 'filesystem.txt' and 'filesx' are not inside salt://files.
    expect((await h.call('cp.get_dir', ['salt://files/conf', join(tmp, 'conf-only')])).return).toEqual([
      join(tmp, 'conf-only', 'conf/app.conf'),
    ]);
    expect(existsSync(join(dest, 'filesystem.txt'))).toBe(false);
  });

  it('cp.get_url: salt:// like get_file, a local path as it is, http:// downloaded, dest=None the contents', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/v.txt' || req.url === '/v.txt?x=1') res.end(`version 3 ${req.headers.authorization ?? ''}`);
      // Python's http.server words its 404 so; Salt's client (tornado) prints the server's reason.
      else res.writeHead(404, 'File not found').end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await h.call('cp.get_url', ['salt://files/motd', join(tmp, 'url-motd')])).return).toBe(join(tmp, 'url-motd'));
      expect((await h.call('cp.get_url', ['salt://files/motd', null])).return).toBe('hello\n');
      expect((await h.call('cp.get_url', ['salt://files/missing', join(tmp, 'm')])).return).toBe(false);
      writeFileSync(join(tmp, 'local.txt'), 'local\n');
      expect((await h.call('cp.get_url', [`file://${join(tmp, 'local.txt')}`, '/nowhere'])).return).toBe(join(tmp, 'local.txt'));
      expect((await h.call('cp.get_url', [join(tmp, 'local.txt'), null])).return).toBe('local\n');
      expect((await h.call('cp.get_url', [`${base}/v.txt`, `${tmp}/dl/`], { makedirs: true })).return).toBe(join(tmp, 'dl', 'v.txt'));
      expect(readFileSync(join(tmp, 'dl', 'v.txt'), 'utf8')).toBe('version 3 ');
      const auth = `http://u:p@127.0.0.1:${(server.address() as AddressInfo).port}/v.txt`;
      expect((await h.call('cp.get_url', [auth, null])).return).toBe(`version 3 Basic ${Buffer.from('u:p').toString('base64')}`);
      expect((await h.call('cp.get_url', [`${base}/v.txt`, join(tmp, 'none', 'v.txt')])).return).toBe('');
      // No dest (''): cached where Salt's fileclient keeps downloads, host without ':' and the query after '-'.
      const host = new URL(base).host.replace(/:/g, '');
      const cached = join(cachedir, 'extrn_files', 'base', host, 'v.txt-x=1');
      expect((await h.call('cp.get_url', [`${base}/v.txt?x=1`, ''])).return).toBe(cached);
      expect(readFileSync(cached, 'utf8')).toBe('version 3 ');
      // cp.cache_file takes an http(s) URL as Salt's does, into the same place.
      rmSync(cached);
      expect((await h.call('cp.cache_file', [`${base}/v.txt?x=1`])).return).toBe(cached);
      expect(readFileSync(cached, 'utf8')).toBe('version 3 ');
      // Failures in the reference Salt 3007's words (its fileclient's MinionError), the path alone after "reading".
      const missing = await h.call('cp.get_url', [`${base}/gone`, join(tmp, 'gone')]);
      expect(missing.success).toBe(false);
      expect(String(missing.return)).toContain('Error: HTTP 404: File not found reading /gone');
      const closed = `http://127.0.0.1:${await freePort()}/x.txt`;
      expect(String((await h.call('cp.get_url', [closed, null])).return)).toContain('Error: [Errno 111] Connection refused reading /x.txt');
      expect(String((await h.call('cp.get_url', ['relative/path', null])).return)).toContain('is not absolute');
    } finally {
      server.close();
    }
  });

  it('event.fire puts the event on the minion bus only; tag fire_master forwards {tag, data} to the master', async () => {
    const before = master.loads.length;
    expect((await h.call('event.fire', [{ a: 1 }, 'local/only'])).return).toBe(true);
    expect(master.loads.length).toBe(before);
    expect((await h.call('event.fire', [{ tag: 'app/up', data: { v: 2 } }, 'fire_master'])).return).toBe(true);
    expect(lastLoad()).toMatchObject({ cmd: '_minion_event', tag: 'app/up', data: { v: 2 } });
    // The bus itself: listeners see every event; a fire_master without a tag sends nothing.
    const errors: string[] = [];
    const bus = new MinionEventBus(master.link, new StreamLogger('warning', (l) => errors.push(l)));
    const seen: MinionEvent[] = [];
    const stop = bus.subscribe((e) => seen.push(e));
    await bus.fire('local/x', 1);
    await bus.fire('fire_master', { data: 'no tag' });
    stop();
    await bus.fire('local/y', 2);
    expect(seen).toEqual([
      { tag: 'local/x', data: 1 },
      { tag: 'fire_master', data: { data: 'no tag' } },
    ]);
    expect(errors.join('\n')).toContain('needs {tag: ..., data: ...}');
    expect(master.loads.length).toBe(before + 1);
  });

  it('cp.list_master, cp.list_master_dirs and cp.hash_file', async () => {
    expect((await h.call('cp.list_master')).return).toEqual(Object.keys(FILES));
    expect(lastLoad()).toMatchObject({ cmd: '_file_list', saltenv: 'base', prefix: '' });
    expect((await h.call('cp.list_master_dirs', [], { saltenv: 'dev' })).return).toEqual(['files']);
    expect(lastLoad()).toMatchObject({ cmd: '_dir_list', saltenv: 'dev' });
    expect((await h.call('cp.hash_file', ['salt://files/motd'])).return).toEqual({ hsum: 'abc', hash_type: 'sha256' });
    expect((await h.call('cp.hash_file', ['salt://files/missing'])).return).toBe('');
  });

  it("mine.send runs the function without the job data and stores it; allow_tgt wraps it in Salt's ACL", async () => {
    expect((await h.call('mine.send', ['test.echo', 'mined'])).return).toBe(true);
    expect(lastLoad()).toEqual({ cmd: '_mine', data: { 'test.echo': 'mined' }, clear: false });
    await h.call('mine.send', ['ip', 'x'], { mine_function: 'test.echo', allow_tgt: 'web*' });
    expect(lastLoad().data).toEqual({ ip: { __data__: 'x', __saltmine_acl__: 1, allow_tgt: 'web*' } });
    expect((await h.call('mine.send', ['no.such'])).return).toBe(false);
  });

  it('mine.update runs the mine_functions (config.merge) and stores them in one _mine load', async () => {
    const m = fakeMaster();
    const config = {
      id: 'web1',
      mine_functions: { 'test.ping': [], ip: [{ mine_function: 'test.echo' }, 'x', { allow_tgt: 'db*' }], gone: [] },
    };
    const withFns = await createHarness({ masterLink: m.link, config, pillar: {} });
    expect((await withFns.call('mine.update', [], { clear: true })).return).toBe(true);
    expect(m.loads.at(-1)).toEqual({
      cmd: '_mine',
      data: { 'test.ping': true, ip: { __data__: 'x', __saltmine_acl__: 1, allow_tgt: 'db*' } },
      clear: true,
    });
    expect((await withFns.call('mine.update', [], { mine_functions: ['test.ping'] })).return).toBe(true);
    expect(m.loads.at(-1)).toEqual({ cmd: '_mine', data: { 'test.ping': true }, clear: false });
  });

  it('mine.get, exclude_minion, mine.delete and mine.flush', async () => {
    expect((await h.call('mine.get', ['*', 'test.echo'])).return).toEqual({ minion: 'mined', other: 'x' });
    expect(lastLoad()).toEqual({ cmd: '_mine_get', tgt: '*', fun: 'test.echo', tgt_type: 'glob' });
    expect((await h.call('mine.get', ['*', 'test.echo'], { exclude_minion: true })).return).toEqual({ other: 'x' });
    expect((await h.call('mine.delete', ['test.echo'])).return).toBe(true);
    expect(lastLoad()).toEqual({ cmd: '_mine_delete', fun: 'test.echo' });
    await h.call('mine.flush');
    expect(lastLoad()).toEqual({ cmd: '_mine_flush' });
  });
});

describe("cp functions over the minion's file cache", async () => {
  const cachedir = join(tmp, 'cp-cache');
  const h = await createHarness({
    masterLink: fakeMaster().link,
    files: MASTER_FILES,
    config: { cachedir },
    grains: { os: 'Debian', id: 'minion' },
    pillar: { role: 'web' },
  });

  it("cp.get_file and cp.get_dir template=jinja render the path and dest names (Salt's _render_filenames), not the files", async () => {
    const got = await h.call(
      'cp.get_file',
      ['salt://{{ "files" }}/motd', join(tmp, '{{ grains.os }}-{{ pillar.role }}-{{ opts.id }}.motd')],
      {
        template: 'jinja',
      },
    );
    expect(got.return).toBe(join(tmp, 'Debian-web-minion.motd'));
    expect(readFileSync(join(tmp, 'Debian-web-minion.motd'), 'utf8')).toBe('hello\n');
    // pillar= stands in for the minion's pillar.
    const dir = await h.call('cp.get_dir', ['salt://{{ pillar.src }}', join(tmp, 'rendered-{{ saltenv }}')], {
      template: 'jinja',
      pillar: { src: 'files/conf' },
    });
    expect(dir.return).toEqual([join(tmp, 'rendered-base', 'conf', 'app.conf')]);
    const mako = await h.call('cp.get_file', ['salt://files/motd', join(tmp, 'm')], { template: 'mako' });
    expect(mako).toMatchObject({
      success: false,
      return: expect.stringContaining('Attempted to render file paths with unavailable engine mako'),
    });
    const broken = await h.call('cp.get_file', ['salt://{{ nosuch.attr }}', join(tmp, 'm')], { template: 'jinja' });
    expect(broken).toMatchObject({ success: false, return: expect.stringContaining('Failed to render file path with error:') });
  });

  it('cp.get_template renders a salt:// Jinja template with grains, salt[...] and the keyword arguments, into dest', async () => {
    const dest = join(tmp, 'tpl-out', 'motd');
    expect((await h.call('cp.get_template', ['salt://tpl/motd.j2', dest], { greeting: 'hello' })).return).toBe('');
    expect((await h.call('cp.get_template', ['salt://tpl/motd.j2', dest], { greeting: 'hello', makedirs: true })).return).toBe(dest);
    expect(readFileSync(dest, 'utf8')).toBe('Debian says hello twice as web\n');
    // Without dest: the minion's cache (extrn_files), as Salt's fileclient.
    const cached = (await h.call('cp.get_template', ['salt://tpl/motd.j2', ''], { greeting: 'hi' })).return as string;
    expect(cached).toBe(join(cachedir, 'extrn_files', 'base', 'tpl', 'motd.j2'));
    expect(readFileSync(cached, 'utf8')).toBe('Debian says hi twice as web\n');
    // A missing source, a template that fails, an engine brine has not: '' as Salt answers.
    expect((await h.call('cp.get_template', ['salt://tpl/nope.j2', dest])).return).toBe('');
    expect((await h.call('cp.get_template', ['salt://tpl/broken.j2', dest])).return).toBe('');
    expect((await h.call('cp.get_template', ['salt://tpl/motd.j2', dest], { template: 'mako' })).return).toBe('');
  });

  it('cp.cache_dir caches the files under a directory (include_pat/exclude_pat), and its empty directories on request', async () => {
    const base = join(cachedir, 'files', 'base');
    expect((await h.call('cp.cache_dir', ['salt://files'])).return).toEqual([join(base, 'files/motd'), join(base, 'files/conf/app.conf')]);
    expect(readFileSync(join(base, 'files/conf/app.conf'), 'utf8')).toBe('x=1\n');
    expect((await h.call('cp.cache_dir', ['salt://files'], { exclude_pat: 'E@conf' })).return).toEqual([join(base, 'files/motd')]);
    expect((await h.call('cp.cache_dir', ['salt://files/'], { include_pat: '*.conf', include_empty: true })).return).toEqual([
      join(base, 'files/conf/app.conf'),
      `${base}/files/empty`,
    ]);
    expect(existsSync(join(base, 'files/empty'))).toBe(true);
  });

  it('cp.list_states names the SLS files of the environment as states (init.sls is its folder)', async () => {
    expect((await h.call('cp.list_states')).return).toEqual(['top', 'web', 'web.site']);
  });
});

describe('mine.update and config.merge', async () => {
  const master = fakeMaster();
  const h = await createHarness({
    masterLink: master.link,
    config: { mine_functions: { echoed: ['from-config'], 'test.echo': ['plain'] } },
    pillar: {
      mine_functions: {
        echoed: ['from-pillar'],
        kw: { mine_function: 'test.arg', a: 1 },
        acl: [{ mine_function: 'test.echo' }, 'x', { allow_tgt: 'web*' }],
      },
    },
  });

  it('config.merge merges the minion config over the pillar (dicts), the first string wins', async () => {
    const merged = (await h.call('config.merge', ['mine_functions'])).return as Record<string, unknown>;
    expect(merged).toEqual({
      echoed: ['from-config'],
      'test.echo': ['plain'],
      kw: { mine_function: 'test.arg', a: 1 },
      acl: [{ mine_function: 'test.echo' }, 'x', { allow_tgt: 'web*' }],
    });
    expect((await h.call('config.merge', ['nosuch', 'fallback'])).return).toBe('fallback');
  });

  it('mine.update runs every mine_functions entry as Salt parses it and sends one _mine', async () => {
    expect((await h.call('mine.update')).return).toBe(true);
    const load = master.loads[master.loads.length - 1];
    expect(load).toMatchObject({ cmd: '_mine', clear: false });
    const data = load.data as Record<string, unknown>;
    // 'echoed' is no function: an alias without mine_function is skipped, as Salt's minion logs it.
    expect(data).toEqual({
      'test.echo': 'plain',
      kw: { args: [], kwargs: expect.objectContaining({ a: 1 }) },
      acl: { __data__: 'x', __saltmine_acl__: 1, allow_tgt: 'web*' },
    });
    expect((await h.call('mine.update', [], { mine_functions: ['test.true'], clear: true })).return).toBe(true);
    expect(master.loads[master.loads.length - 1]).toEqual({ cmd: '_mine', data: { 'test.true': true }, clear: true });
  });
});

describe('without a master (salt-call --local)', async () => {
  const h = await createHarness();
  it('each module says there is no master to ask', async () => {
    for (const [fun, args] of [
      ['event.send', ['a/b']],
      ['cp.list_master', []],
      ['mine.get', ['*', 'x']],
    ] as const) {
      const res = await h.call(fun, [...args]);
      expect(res.success).toBe(false);
      expect(String(res.return)).toContain('runs without a master');
    }
  });
});
