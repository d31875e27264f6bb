/**
 * SLS files from the master through the minion's file cache: fetched once, re-fetched only when
 * the master's digest changes, Jinja imports cached along with the SLS that names them.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileEnvs, fileHash, fileList, serveFile, type FileServerOptions } from '../../../src/core/master/file-server';
import { FileClient } from '../../../src/core/minion/file-client';
import { FileCache } from '../../../src/core/minion/file-cache';
import { jinjaReferences, RemoteSlsSource } from '../../../src/core/state/sls-source';
import { decode, encode } from '../../../src/core/protocol/msgpack';

let dir: string;
let opts: FileServerOptions;
const asked: string[] = [];

/** The master's answers, through msgpack both ways as on the wire. */
async function request(load: Record<string, unknown>): Promise<unknown> {
  const wire = decode(encode(load)) as Record<string, unknown>;
  asked.push(`${String(wire.cmd)} ${String(wire.path ?? '')}`.trim());
  const answers: Record<string, () => unknown> = {
    _file_list: () => fileList(opts, wire),
    _file_hash: () => fileHash(opts, wire),
    _file_envs: () => fileEnvs(opts),
    _serve_file: () => serveFile(opts, wire),
  };
  return decode(encode(answers[String(wire.cmd)]()));
}

function master(rel: string, text: string): void {
  const p = join(dir, 'roots', rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'brine-rsls-'));
  opts = { file_roots: { base: [join(dir, 'roots')], dev: [join(dir, 'dev')] } };
  asked.length = 0;
  master('web/init.sls', "{% from './map.jinja' import port %}\n{% import_yaml 'common/defaults.yaml' as d %}\nweb: {test.nop: []}\n");
  master('web/map.jinja', "{% set port = 80 %}{% include 'web/map.jinja' %}\n");
  master('common/defaults.yaml', 'a: 1\n');
  master('other.sls', 'x: {test.nop: []}\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('jinjaReferences', () => {
  it('finds literal template names, relative ones resolved from the template', () => {
    const text =
      "{% from './map.jinja' import x %}{% import \"a/b.jinja\" as b %}{%- include '../up.sls' %}{% import_text 't.txt' as t %}{% import name as n %}";
    expect(jinjaReferences(text, 'web/sub/init.sls')).toEqual(['web/sub/map.jinja', 'a/b.jinja', 'web/up.sls', 't.txt']);
  });
});

describe('RemoteSlsSource', () => {
  it('fetches an SLS with the templates it imports (import cycles end), and lists SLS names and envs', async () => {
    const cachedir = join(dir, 'cache');
    const source = new RemoteSlsSource(new FileCache(new FileClient(request), cachedir));
    expect(await source.listSls('base')).toEqual(['other', 'web']);
    expect(await source.envs()).toEqual(['base', 'dev']);
    const sls = await source.getSls('base', 'web');
    expect(sls?.source).toBe('web/init.sls');
    expect(sls?.path).toBe(join(cachedir, 'files', 'base', 'web', 'init.sls'));
    expect(readFileSync(join(cachedir, 'files', 'base', 'web', 'map.jinja'), 'utf8')).toContain('port = 80');
    expect(readFileSync(join(cachedir, 'files', 'base', 'common', 'defaults.yaml'), 'utf8')).toBe('a: 1\n');
    expect(source.roots('base')).toEqual([join(cachedir, 'files', 'base')]);
    expect(await source.getSls('base', 'nosuch')).toBeNull();
    expect(await source.getFile('base', '../etc/passwd')).toBeNull();
  });

  it('downloads again only what changed on the master', async () => {
    const cache = new FileCache(new FileClient(request), join(dir, 'cache'));
    await new RemoteSlsSource(cache).getSls('base', 'other');
    expect(asked.filter((a) => a.startsWith('_serve_file'))).toEqual(['_serve_file other.sls', '_serve_file other.sls']);
    asked.length = 0;
    await new RemoteSlsSource(cache).getSls('base', 'other');
    expect(asked).toEqual(['_file_list', '_file_hash other.sls']);
    master('other.sls', 'y: {test.nop: []}\n');
    asked.length = 0;
    const changed = await new RemoteSlsSource(cache).getSls('base', 'other');
    expect(changed?.text).toBe('y: {test.nop: []}\n');
    expect(asked.filter((a) => a.startsWith('_serve_file')).length).toBeGreaterThan(0);
  });
});
