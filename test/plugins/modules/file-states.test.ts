/**
 * The `file` state module in process (one harness, no daemons): every function against a
 * temporary tree, with Salt 3007's comments and changes; test=True proved to change nothing by a
 * snapshot of paths, modes, contents and mtimes.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../src/plugins/builtins';
import { serializeData } from '../../../plugins/file/file-serialize';
import { extractHash } from '../../../plugins/file/file-source';
import { freePort } from '../../../scripts/free-port';

const root = mkdtempSync(join(tmpdir(), 'brine-filestates-'));
const states = join(root, 'states');
const cachedir = join(root, 'cache');
let h: Harness;
let server: Server;
let http = '';

type Ret = { name: string; changes: Record<string, unknown>; result: boolean | null; comment: string };

/** Run one state function through state.single; its one result. */
async function single(fun: string, name: string, kwargs: Record<string, unknown> = {}): Promise<Ret> {
  const res = await h.call('state.single', [fun, name], kwargs);
  const values = Object.values(res.return as Record<string, Ret>);
  expect(values).toHaveLength(1);
  return values[0];
}

/** A fresh directory under the root for one test. */
function dir(label: string): string {
  const d = join(root, 'work', label);
  mkdirSync(d, { recursive: true });
  return d;
}

beforeAll(async () => {
  mkdirSync(join(states, 'site/sub'), { recursive: true });
  mkdirSync(join(states, 'files'), { recursive: true });
  writeFileSync(join(states, 'site/index.html'), 'hello\n');
  writeFileSync(join(states, 'site/sub/page.html'), 'page\n');
  writeFileSync(join(states, 'site/skip.tmp'), 'tmp\n');
  writeFileSync(join(states, 'site/conf.j2'), 'id={{ grains.id }}\n');
  writeFileSync(join(states, 'files/plain.conf'), 'plain\n');
  writeFileSync(join(states, 'files/tmpl.conf'), 'v={{ v }} d={{ d }}\n');
  h = await createHarness({
    modules: BUILTIN_PLUGINS,
    grains: { id: 'minion', os: 'Debian', motd: 'from grains' },
    pillar: { app: { motd: 'from pillar', lines: ['a', 'b'] }, data: { b: [1, 2], a: { x: 'y' } } },
    config: { file_client: 'local', file_roots: { base: [states] }, cachedir },
  });
  server = createServer((req, res) => {
    // /private.txt wants HTTP basic authentication as user "deploy", password "s3cr:et".
    if (req.url === '/private.txt' && req.headers.authorization !== `Basic ${Buffer.from('deploy:s3cr:et').toString('base64')}`) {
      res.statusCode = 401;
      return void res.end();
    }
    const body = req.url === '/hashes' ? `${sha('remote\n')}  remote.txt\n` : 'remote\n';
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  http = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('file.managed', () => {
  it('takes the first source of a list that exists, and renders templates with context/defaults', async () => {
    const d = dir('managed-src');
    const r = await single('file.managed', `${d}/a.conf`, { source: ['salt://files/nope.conf', 'salt://files/plain.conf'] });
    expect(r).toMatchObject({ result: true, comment: `File ${d}/a.conf updated`, changes: { diff: 'New file', mode: '0644' } });
    const none = await single('file.managed', `${d}/b.conf`, { source: ['salt://files/nope.conf', '/no/such/file'] });
    expect(none).toMatchObject({ result: false, comment: 'Unable to manage file: none of the specified sources were found' });
    await single('file.managed', `${d}/t.conf`, {
      source: 'salt://files/tmpl.conf',
      template: 'jinja',
      defaults: { v: 1, d: 'x' },
      context: { v: 2 },
    });
    expect(readFileSync(`${d}/t.conf`, 'utf8')).toBe('v=2 d=x\n');
  });

  it('checks source_hash: <type>=<hex>, bare hex, a hash file; required for http; a mismatch fails', async () => {
    const d = dir('managed-hash');
    const need = await single('file.managed', `${d}/r.txt`, { source: `${http}/remote.txt` });
    expect(need).toMatchObject({
      result: false,
      comment: `Unable to verify upstream hash of source file ${http}/remote.txt, please set source_hash or set skip_verify to True`,
    });
    const ok = await single('file.managed', `${d}/r.txt`, { source: `${http}/remote.txt`, source_hash: `sha256=${sha('remote\n')}` });
    expect(ok).toMatchObject({ result: true, changes: { diff: 'New file' } });
    expect(readFileSync(`${d}/r.txt`, 'utf8')).toBe('remote\n');
    // Downloaded where Salt's fileclient keeps it (extrn_files in the minion's cachedir), not in a temporary folder left behind.
    expect(readFileSync(join(cachedir, 'extrn_files', 'base', new URL(http).host.replace(/:/g, ''), 'remote.txt'), 'utf8')).toBe(
      'remote\n',
    );
    // user:password in the URL is basic authentication; the password never shows in a comment.
    const authed = http.replace('//', '//deploy:s3cr%3Aet@');
    const priv = await single('file.managed', `${d}/p.txt`, { source: `${authed}/private.txt`, skip_verify: true });
    expect(priv.result).toBe(true);
    // In a source list each http(s) source is asked with HEAD, as Salt's source_list does, its
    // user:password too: the refused one is passed over, the next one taken.
    const listed = await single('file.managed', `${d}/listed.txt`, {
      source: [`${http.replace('//', '//deploy:wrong@')}/private.txt`, `${authed}/private.txt`],
      skip_verify: true,
    });
    expect(listed.result).toBe(true);
    expect(readFileSync(`${d}/listed.txt`, 'utf8')).toBe('remote\n');
    expect(readFileSync(`${d}/p.txt`, 'utf8')).toBe('remote\n');
    const denied = await single('file.managed', `${d}/p2.txt`, {
      source: `${http.replace('//', '//deploy:wrong@')}/private.txt`,
      skip_verify: true,
    });
    expect(denied.result).toBe(false);
    // The reference Salt 3007's words for the same request (salt-call --local state.single file.managed against this server).
    expect(denied.comment).toBe(
      `Failed to cache ${http.replace('//', '//<redacted>@')}/private.txt: Error: HTTP 401: Unauthorized reading /private.txt`,
    );
    const refusedAt = `http://127.0.0.1:${await freePort()}/x.txt`;
    const refused = await single('file.managed', `${d}/p3.txt`, { source: refusedAt, skip_verify: true });
    expect(refused.comment).toBe(`Failed to cache ${refusedAt}: Error: [Errno 111] Connection refused reading /x.txt`);
    const viaFile = await single('file.managed', `${d}/r2.txt`, { source: `${http}/remote.txt`, source_hash: `${http}/hashes` });
    expect(viaFile.result).toBe(true);
    const bad = 'a'.repeat(64);
    const wrong = await single('file.managed', `${d}/r3.txt`, { source: `${http}/remote.txt`, source_hash: bad });
    expect(wrong).toMatchObject({
      result: false,
      comment: `Specified sha256 checksum for ${d}/r3.txt (${bad}) does not match actual checksum (${sha('remote\n')})`,
    });
    expect(existsSync(`${d}/r3.txt`)).toBe(false);
    // A failed change leaves an existing target exactly as it was.
    writeFileSync(`${d}/r3.txt`, 'kept\n');
    const kept = await single('file.managed', `${d}/r3.txt`, { source: `${http}/remote.txt`, source_hash: bad });
    expect(kept.comment).toMatch(/^Specified sha256 checksum for http:.* does not match actual checksum .*'source_hash_name'\.$/);
    expect(readFileSync(`${d}/r3.txt`, 'utf8')).toBe('kept\n');
    expect(readdirSync(d).filter((f) => f.startsWith('.'))).toEqual([]);
    writeFileSync(`${d}/local.txt`, 'local\n');
    const skip = await single('file.managed', `${d}/r4.txt`, { source: `${http}/remote.txt`, skip_verify: true });
    expect(skip.result).toBe(true);
    const local = await single('file.managed', `${d}/r5.txt`, { source: `${d}/local.txt` });
    expect(local.result).toBe(true);
    const badType = await single('file.managed', `${d}/r6.txt`, { source: `${d}/local.txt`, source_hash: `md5=${bad}` });
    expect(badType.comment).toBe(
      `Invalid length (64) for hash type 'md5'. Either remove the hash type and simply use '${bad}' as the source_hash, or change the hash type to 'sha256'`,
    );
  });

  it('reads contents_pillar / contents_grains; replace: False, create: False, show_changes: False', async () => {
    const d = dir('managed-contents');
    await single('file.managed', `${d}/p.txt`, { contents_pillar: 'app:motd' });
    expect(readFileSync(`${d}/p.txt`, 'utf8')).toBe('from pillar\n');
    await single('file.managed', `${d}/g.txt`, { contents_grains: 'motd' });
    expect(readFileSync(`${d}/g.txt`, 'utf8')).toBe('from grains\n');
    expect(await single('file.managed', `${d}/x.txt`, { contents_pillar: 'app:nope' })).toMatchObject({
      result: false,
      comment: 'Pillar app:nope does not exist',
    });
    expect(await single('file.managed', `${d}/p.txt`, { contents: 'other', replace: false })).toMatchObject({
      result: true,
      comment: `File ${d}/p.txt exists with proper permissions. No changes made.`,
    });
    expect(await single('file.managed', `${d}/new.txt`, { contents: 'x', create: false })).toMatchObject({
      result: true,
      comment: `File ${d}/new.txt is not present and is not set for creation`,
    });
    expect(await single('file.managed', `${d}/empty.txt`)).toMatchObject({
      comment: 'Empty file',
      changes: { new: `file ${d}/empty.txt created` },
    });
    const hidden = await single('file.managed', `${d}/p.txt`, { contents: 'changed', show_changes: false });
    expect(hidden.changes).toEqual({ diff: '<show_changes=False>' });
  });

  it('sets user, group and mode, makes parents, keeps a backup: minion copy, follows symlinks', async () => {
    const d = dir('managed-perms');
    const r = await single('file.managed', `${d}/deep/er/f.txt`, {
      contents: 'one',
      makedirs: true,
      mode: 600,
      user: 'root',
      group: 'root',
    });
    expect(r.changes).toEqual({ diff: 'New file', mode: '0600' });
    expect(statSync(`${d}/deep/er/f.txt`).mode & 0o777).toBe(0o600);
    const again = await single('file.managed', `${d}/deep/er/f.txt`, { contents: 'two', backup: 'minion', mode: '0640' });
    expect(again.changes).toEqual({ diff: '--- \n+++ \n@@ -1 +1 @@\n-one\n+two\n', mode: '0640' });
    const bkdir = join(cachedir, 'file_backup', d.slice(1), 'deep/er');
    const backups = readdirSync(bkdir);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^f\.txt_[A-Z][a-z]{2}_[A-Z][a-z]{2}_\d\d_\d\d:\d\d:\d\d_\d{6}_\d{4}$/);
    expect(readFileSync(join(bkdir, backups[0]), 'utf8')).toBe('one\n');
    const noParent = await single('file.managed', `${d}/none/f.txt`, { contents: 'x' });
    expect(noParent).toMatchObject({ result: false, comment: 'Parent directory not present' });
    writeFileSync(`${d}/real.txt`, 'real\n');
    symlinkSync(`${d}/real.txt`, `${d}/link.txt`);
    await single('file.managed', `${d}/link.txt`, { contents: 'through' });
    expect(readFileSync(`${d}/real.txt`, 'utf8')).toBe('through\n');
    const replaced = await single('file.managed', `${d}/link.txt`, { contents: 'own', follow_symlinks: false });
    expect(replaced.changes).toMatchObject({ diff: 'Replace symbolic link with regular file' });
    expect(lstatSync(`${d}/link.txt`).isSymbolicLink()).toBe(false);
    if (process.getuid?.() === 0) {
      const owned = await single('file.managed', `${d}/real.txt`, { user: 'nobody', group: 'nogroup', replace: false });
      expect(owned.changes).toEqual({ user: 'nobody', group: 'nogroup' });
    }
  });
});

describe('file.directory', () => {
  it('applies user/group/mode recursively (ignore_files) and cleans with exclude_pat', async () => {
    const d = dir('directory');
    mkdirSync(`${d}/top/sub`, { recursive: true });
    writeFileSync(`${d}/top/a.txt`, 'a');
    writeFileSync(`${d}/top/sub/b.txt`, 'b');
    writeFileSync(`${d}/top/keep.log`, 'k');
    chmodSync(`${d}/top/a.txt`, 0o600);
    const dry = await single('file.directory', `${d}/top`, { recurse: ['mode'], dir_mode: 750, file_mode: 640, test: true });
    expect(dry.result).toBeNull();
    expect(dry.changes).toEqual({
      [`${d}/top/a.txt`]: { mode: '0640' },
      [`${d}/top/keep.log`]: { mode: '0640' },
      [`${d}/top/sub/b.txt`]: { mode: '0640' },
      [`${d}/top/sub`]: { mode: '0750' },
      [`${d}/top`]: { mode: '0750' },
    });
    expect(dry.comment).toContain('The following files will be changed:\n');
    const real = await single('file.directory', `${d}/top`, { recurse: ['mode', 'ignore_files'], dir_mode: 750, file_mode: 640 });
    expect(real.result).toBe(true);
    expect(real.comment).toBe(`Directory ${d}/top updated`);
    expect(statSync(`${d}/top/sub`).mode & 0o777).toBe(0o750);
    expect(statSync(`${d}/top/a.txt`).mode & 0o777).toBe(0o600);
    const bad = await single('file.directory', `${d}/top`, { recurse: ['bogus'] });
    expect(bad.comment).toBe('Types for "recurse" limited to "user", "group", "mode", "ignore_files", "ignore_dirs", "silent".');
    const cleaned = await single('file.directory', `${d}/top`, { clean: true, exclude_pat: '*.log' });
    // Salt reports each path of the plan and the list of what it removed.
    expect(cleaned.changes).toEqual({
      [`${d}/top/a.txt`]: { removed: 'Removed due to clean' },
      [`${d}/top/sub`]: { removed: 'Removed due to clean' },
      [`${d}/top/sub/b.txt`]: { removed: 'Removed due to clean' },
      removed: [`${d}/top/sub`, `${d}/top/a.txt`],
    });
    expect(cleaned.comment).toBe(`Files cleaned from directory ${d}/top`);
    expect(readdirSync(`${d}/top`)).toEqual(['keep.log']);
    const same = await single('file.directory', `${d}/top`, { dir_mode: 750 });
    expect(same).toMatchObject({ result: true, comment: `The directory ${d}/top is in the correct state`, changes: {} });
  });
});

describe('file.recurse', () => {
  it('copies a salt:// directory (include/exclude, file_mode, template), cleans, and is idempotent', async () => {
    const d = join(dir('recurse'), 'www');
    mkdirSync(d);
    writeFileSync(`${d}/stale.html`, 'old');
    const r = await single('file.recurse', d, {
      source: 'salt://site',
      exclude_pat: '*.tmp',
      file_mode: 600,
      clean: true,
      template: 'jinja',
    });
    expect(r.result).toBe(true);
    expect(r.comment).toBe(`Recursively updated ${d}`);
    expect(Object.keys(r.changes).sort()).toEqual([`${d}/conf.j2`, `${d}/index.html`, `${d}/sub`, `${d}/sub/page.html`, 'removed']);
    expect(r.changes.removed).toEqual([`${d}/stale.html`]);
    expect(readFileSync(`${d}/conf.j2`, 'utf8')).toBe('id=minion\n');
    expect(statSync(`${d}/sub/page.html`).mode & 0o777).toBe(0o600);
    expect(existsSync(`${d}/skip.tmp`)).toBe(false);
    const again = await single('file.recurse', d, {
      source: 'salt://site',
      exclude_pat: '*.tmp',
      file_mode: 600,
      clean: true,
      template: 'jinja',
    });
    expect(again).toMatchObject({ result: true, changes: {}, comment: `The directory ${d} is in the correct state` });
    const only = await single('file.recurse', `${d}-html`, { source: 'salt://site', include_pat: 'E@\\.html$' });
    expect(Object.keys(only.changes).sort()).toEqual([`${d}-html/index.html`, `${d}-html/sub`, `${d}-html/sub/page.html`]);
    const missing = await single('file.recurse', `${d}-x`, { source: 'salt://nothing' });
    expect(missing).toMatchObject({
      result: false,
      comment: "The directory 'nothing' does not exist on the salt fileserver in saltenv 'base'",
    });
    expect(await single('file.recurse', `${d}-y`, { source: '/srv/site' })).toMatchObject({
      result: false,
      comment: "Invalid source '/srv/site' (must be a salt:// URI)",
    });
  });
});

describe('file.serialize', () => {
  it("writes json and yaml as Salt's serializers print them, from dataset or dataset_pillar, merging when asked", async () => {
    const d = dir('serialize');
    const j = await single('file.serialize', `${d}/a.json`, { dataset: { b: 1, a: [1, 'x'] }, serializer: 'json' });
    expect(j).toMatchObject({ result: true, changes: { diff: 'New file' }, comment: `File ${d}/a.json updated` });
    // python3 -c 'import json; print(json.dumps({"b":1,"a":[1,"x"]}, indent=2, separators=(",", ": "), sort_keys=True))'
    expect(readFileSync(`${d}/a.json`, 'utf8')).toBe('{\n  "a": [\n    1,\n    "x"\n  ],\n  "b": 1\n}\n');
    await single('file.serialize', `${d}/p.yaml`, { dataset_pillar: 'data' });
    // python3 -c 'import yaml; print(yaml.safe_dump({"b":[1,2],"a":{"x":"y"}}, default_flow_style=False), end="")'
    expect(readFileSync(`${d}/p.yaml`, 'utf8')).toBe('a:\n  x: y\nb:\n- 1\n- 2\n');
    const merged = await single('file.serialize', `${d}/a.json`, { dataset: { c: true }, serializer: 'json', merge_if_exists: true });
    expect(merged.changes.diff).toEqual({ c: { new: true, old: '' } });
    expect(JSON.parse(readFileSync(`${d}/a.json`, 'utf8'))).toEqual({ a: [1, 'x'], b: 1, c: true });
    const same = await single('file.serialize', `${d}/a.json`, { dataset: { c: true }, serializer: 'json', merge_if_exists: true });
    expect(same).toMatchObject({ result: true, comment: `The file ${d}/a.json is in the correct state` });
    expect(await single('file.serialize', `${d}/n.json`, { serializer: 'json' })).toMatchObject({
      result: false,
      comment: "Neither 'dataset' nor 'dataset_pillar' was defined",
    });
    expect((await single('file.serialize', `${d}/n.toml`, { dataset: {}, serializer: 'toml' })).comment).toBe(
      'The toml serializer could not be found. It either does not exist or its prerequisites are not installed.',
    );
    expect(serializeData('yaml', 'scalar')).toBe('scalar');
  });
});

describe('text edits', () => {
  it('prepend, blockreplace, comment and uncomment with Salt’s comments and diffs', async () => {
    const d = dir('edits');
    writeFileSync(`${d}/f`, 'one\ntwo\n');
    const pre = await single('file.prepend', `${d}/f`, { text: ['# head', 'one'] });
    expect(pre).toMatchObject({
      result: true,
      comment: 'Prepended 1 lines',
      changes: { diff: '--- \n+++ \n@@ -1,2 +1,3 @@\n+# head\n one\n two\n' },
    });
    expect((await single('file.prepend', `${d}/f`, { text: '# head' })).comment).toBe(`File ${d}/f is in correct state`);
    const block = await single('file.blockreplace', `${d}/f`, {
      marker_start: '# BEGIN',
      marker_end: '# END',
      content: 'x=1',
      append_if_not_found: true,
    });
    expect(block).toMatchObject({ result: true, comment: 'Changes were made' });
    expect(readFileSync(`${d}/f`, 'utf8')).toBe('# head\none\ntwo\n# BEGIN\nx=1\n# END\n');
    expect((await single('file.blockreplace', `${d}/f`, { marker_start: '# BEGIN', marker_end: '# END', content: 'x=1' })).comment).toBe(
      'No changes needed to be made',
    );
    expect(readFileSync(`${d}/f.bak`, 'utf8')).toBe('# head\none\ntwo\n');
    const com = await single('file.comment', `${d}/f`, { regex: '^two' });
    expect(com).toMatchObject({
      result: true,
      comment: 'Commented lines successfully',
      changes: { diff: expect.stringContaining('-two\n+#two\n') },
    });
    expect((await single('file.comment', `${d}/f`, { regex: '^two' })).comment).toBe('Pattern already commented');
    expect(await single('file.comment', `${d}/f`, { regex: '^zzz' })).toMatchObject({ result: false, comment: 'zzz: Pattern not found' });
    const un = await single('file.uncomment', `${d}/f`, { regex: 'two' });
    expect(un).toMatchObject({ result: true, comment: 'Uncommented lines successfully' });
    expect((await single('file.uncomment', `${d}/f`, { regex: 'two' })).comment).toBe('Pattern already uncommented');
    expect(readFileSync(`${d}/f`, 'utf8')).toBe('# head\none\ntwo\n# BEGIN\nx=1\n# END\n');
  });

  it('append, prepend and blockreplace read their text from rendered template sources', async () => {
    const d = dir('edit-sources');
    writeFileSync(`${d}/f`, 'body\n# BEGIN\n# END\n');
    const tmpl = { source: 'salt://files/tmpl.conf', defaults: { v: 1, d: 'x' }, context: { v: 2 } };
    expect(await single('file.append', `${d}/f`, tmpl)).toMatchObject({ result: true, comment: 'Appended 1 lines' });
    expect(await single('file.prepend', `${d}/f`, { sources: ['salt://files/plain.conf'], template: '' })).toMatchObject({
      result: true,
      comment: 'Prepended 1 lines',
    });
    await single('file.blockreplace', `${d}/f`, { ...tmpl, marker_start: '# BEGIN', marker_end: '# END' });
    expect(readFileSync(`${d}/f`, 'utf8')).toBe('plain\nbody\n# BEGIN\nv=2 d=x\n# END\nv=2 d=x\n');
    expect(await single('file.append', `${d}/f`, { source: 'salt://files/nope' })).toMatchObject({
      name: 'salt://files/nope',
      result: false,
      comment: 'Failed to load template file salt://files/nope',
    });
    expect(await single('file.append', `${d}/f`, { source: 'salt://files/plain.conf', sources: ['salt://x'] })).toMatchObject({
      result: false,
      comment: 'source and sources are mutually exclusive',
    });
  });
});

describe('touch, copy, rename', () => {
  it('touch creates or updates times; copy honours force/preserve/makedirs; rename honours force/makedirs', async () => {
    const d = dir('ops');
    expect(await single('file.touch', `${d}/t`)).toMatchObject({
      result: true,
      comment: `Created empty file ${d}/t`,
      changes: { new: `${d}/t` },
    });
    expect(await single('file.touch', `${d}/t`, { mtime: 1000000000 })).toMatchObject({
      comment: `Updated times on file ${d}/t`,
      changes: { touched: `${d}/t` },
    });
    expect(statSync(`${d}/t`).mtimeMs).toBe(1000000000 * 1000);
    expect((await single('file.touch', `${d}/no/t`)).comment).toBe(`Directory not present to touch file ${d}/no/t`);
    writeFileSync(`${d}/src`, 'data');
    chmodSync(`${d}/src`, 0o600);
    expect(await single('file.copy', `${d}/new/dst`, { source: `${d}/src`, makedirs: true })).toMatchObject({
      result: true,
      comment: `Copied "${d}/src" to "${d}/new/dst"`,
      changes: { [`${d}/new/dst`]: `${d}/src` },
    });
    expect(statSync(`${d}/new/dst`).mode & 0o777).toBe(0o600);
    expect((await single('file.copy', `${d}/other/dst`, { source: `${d}/src` })).comment).toBe(
      `The target directory ${d}/other is not present`,
    );
    writeFileSync(`${d}/src`, 'data2');
    expect((await single('file.copy', `${d}/new/dst`, { source: `${d}/src` })).comment).toBe(
      `The target file "${d}/new/dst" exists and will not be overwritten`,
    );
    await single('file.copy', `${d}/new/dst`, { source: `${d}/src`, force: true, preserve: true });
    expect(readFileSync(`${d}/new/dst`, 'utf8')).toBe('data2');
    expect(await single('file.rename', `${d}/moved/r`, { source: `${d}/src`, makedirs: true })).toMatchObject({
      result: true,
      comment: `Moved "${d}/src" to "${d}/moved/r"`,
      changes: { [`${d}/moved/r`]: `${d}/src` },
    });
    expect((await single('file.rename', `${d}/moved/r`, { source: `${d}/src` })).comment).toBe(
      `Source file "${d}/src" has already been moved out of place`,
    );
    writeFileSync(`${d}/src2`, 'two');
    expect((await single('file.rename', `${d}/moved/r`, { source: `${d}/src2` })).comment).toBe(
      `The target file "${d}/moved/r" exists and will not be overwritten`,
    );
    await single('file.rename', `${d}/moved/r`, { source: `${d}/src2`, force: true });
    expect(readFileSync(`${d}/moved/r`, 'utf8')).toBe('two');
  });
});

describe('hash files', () => {
  it('extract_hash prefers the line naming source_hash_name, then the target, then the source', () => {
    const text = `${'1'.repeat(64)}  other.tar\n${'2'.repeat(64)}  app.tar\n${'3'.repeat(64)} *target.bin\n`;
    expect(extractHash(text, '/x/target.bin', 'http://h/app.tar')?.hsum).toBe('3'.repeat(64));
    expect(extractHash(text, '/x/none', 'http://h/app.tar')?.hsum).toBe('2'.repeat(64));
    expect(extractHash(text, '/x/none', 'http://h/none', 'other.tar')?.hsum).toBe('1'.repeat(64));
    expect(extractHash(text, '/x/none', 'http://h/none')?.hsum).toBe('1'.repeat(64));
  });
});

/** Paths, types, modes, contents and mtimes of a tree. */
function snapshot(top: string): string {
  const out: string[] = [];
  const walk = (p: string): void => {
    const st = lstatSync(p);
    const what = st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : st.isFile() ? readFileSync(p, 'utf8') : 'dir';
    out.push(`${p} ${(st.mode & 0o7777).toString(8)} ${st.mtimeMs} ${what}`);
    if (st.isDirectory()) for (const n of readdirSync(p).sort()) walk(join(p, n));
  };
  walk(top);
  return out.join('\n');
}

describe('test=True', () => {
  it('changes nothing on disk for any file state function', async () => {
    const d = dir('dry');
    mkdirSync(`${d}/tree/sub`, { recursive: true });
    writeFileSync(`${d}/tree/sub/x`, 'x');
    writeFileSync(`${d}/text`, 'one\n#two\nthree\n# BEGIN\nold\n# END\n');
    writeFileSync(`${d}/data.json`, '{"a": 1}\n');
    writeFileSync(`${d}/src`, 'src');
    symlinkSync(`${d}/text`, `${d}/link`);
    const t = `${d}/text`;
    const calls: [string, string, Record<string, unknown>][] = [
      ['file.managed', `${d}/new/file`, { contents: 'x', makedirs: true }],
      ['file.managed', t, { contents: 'other', mode: 600, backup: 'minion' }],
      ['file.managed', `${d}/site.conf`, { source: 'salt://files/plain.conf' }],
      ['file.managed', `${d}/remote`, { source: `${http}/remote.txt`, source_hash: sha('remote\n') }],
      ['file.serialize', `${d}/data.json`, { dataset: { b: 2 }, serializer: 'json', merge_if_exists: true }],
      ['file.serialize', `${d}/new.yaml`, { dataset: { b: 2 } }],
      ['file.directory', `${d}/tree`, { recurse: ['mode'], dir_mode: 700, file_mode: 600, clean: true }],
      ['file.directory', `${d}/newdir/sub`, { makedirs: true }],
      ['file.recurse', `${d}/www`, { source: 'salt://site', clean: true }],
      ['file.recurse', `${d}/tree`, { source: 'salt://site', clean: true }],
      ['file.absent', `${d}/src`, {}],
      ['file.absent', `${d}/tree`, {}],
      ['file.symlink', `${d}/link`, { target: `${d}/src` }],
      ['file.symlink', `${d}/link2`, { target: `${d}/src` }],
      ['file.append', t, { text: 'four' }],
      ['file.append', `${d}/nothere`, { text: 'four' }],
      ['file.prepend', t, { text: 'zero' }],
      ['file.replace', t, { pattern: 'one', repl: 'ONE' }],
      ['file.line', t, { content: 'new', mode: 'ensure', after: 'one' }],
      ['file.blockreplace', t, { marker_start: '# BEGIN', marker_end: '# END', content: 'new' }],
      ['file.comment', t, { regex: '^one' }],
      ['file.uncomment', t, { regex: 'two' }],
      ['file.touch', t, { mtime: 1 }],
      ['file.touch', `${d}/touched`, {}],
      ['file.copy', `${d}/copy`, { source: `${d}/src` }],
      ['file.copy', t, { source: `${d}/src`, force: true }],
      ['file.rename', `${d}/renamed`, { source: `${d}/src` }],
      ['file.rename', t, { source: `${d}/src`, force: true }],
      ['file.exists', t, {}],
      ['file.missing', `${d}/nothere`, {}],
    ];
    const before = snapshot(d);
    const backupsBefore = existsSync(join(cachedir, 'file_backup')) ? snapshot(join(cachedir, 'file_backup')) : '';
    for (const [fun, name, kwargs] of calls) {
      const r = await single(fun, name, { ...kwargs, test: true });
      expect([fun, name, r.result === false ? r.comment : 'ok']).toEqual([fun, name, 'ok']);
    }
    expect(snapshot(d)).toBe(before);
    expect(existsSync(join(cachedir, 'file_backup')) ? snapshot(join(cachedir, 'file_backup')) : '').toBe(backupsBefore);
    // Every function of the module is in the list above.
    const listed = new Set(calls.map(([f]) => f));
    const fns = h.plugins.registry.functionNames('state').filter((f) => f.startsWith('file.'));
    expect(fns).toHaveLength(18);
    const doc = (await h.call('sys.state_doc', ['file.recurse'])).return as Record<string, string>;
    expect(doc['file.recurse']).toContain('salt:// directory');
    expect(fns.filter((f) => !listed.has(f))).toEqual([]);
  });
});

describe('file.line', () => {
  it('edits through file.line: show_changes=False reports True, backup keeps a dated copy, indent follows the anchor', async () => {
    const d = dir('line-state');
    const t = join(d, 'conf');
    writeFileSync(t, 'top\n    key = 1\n');
    const ret = await single('file.line', t, { content: 'other = 2', mode: 'ensure', after: 'key', show_changes: false, backup: true });
    expect(ret).toMatchObject({ result: true, changes: { diff: true }, comment: 'Changes were made' });
    expect(readFileSync(t, 'utf8')).toBe('top\n    key = 1\n    other = 2\n');
    const copies = readdirSync(d).filter((n) => n !== 'conf');
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(d, copies[0]), 'utf8')).toBe('top\n    key = 1\n');
    const noIndent = await single('file.line', t, { content: 'last', mode: 'ensure', after: 'other', indent: false });
    expect(noIndent.changes.diff).toBe('--- \n+++ \n@@ -1,3 +1,4 @@\n top\n     key = 1\n     other = 2\n+last\n');
  });

  it('fails with the editor error, leaving the file as it was, when an anchor matches more than one line', async () => {
    const t = join(dir('line-state-err'), 'conf');
    writeFileSync(t, 'a\na\n');
    const ret = await single('file.line', t, { content: 'x', mode: 'insert', after: 'a' });
    expect(ret).toMatchObject({ result: false, comment: 'Found more than expected occurrences in "after" expression' });
    expect(readFileSync(t, 'utf8')).toBe('a\na\n');
  });
});
