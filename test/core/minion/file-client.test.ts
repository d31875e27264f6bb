import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileList, serveFile, type FileServerOptions } from '../../../src/core/master/file-server';
import { FileClient } from '../../../src/core/minion/file-client';
import { decode, encode } from '../../../src/core/protocol/msgpack';

let dir: string;
let opts: FileServerOptions;
const sent: Record<string, unknown>[] = [];

/** The master's request handling, through msgpack both ways as on the wire. */
async function request(load: Record<string, unknown>): Promise<unknown> {
  const wire = decode(encode(load)) as Record<string, unknown>;
  sent.push(wire);
  const reply = wire.cmd === '_file_list' ? fileList(opts, wire) : serveFile(opts, wire);
  return decode(encode(reply));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'brine-fc-'));
  mkdirSync(join(dir, 'root', '_modules'), { recursive: true });
  writeFileSync(join(dir, 'root', '_modules', 'text.ts'), 'é'.repeat(20));
  writeFileSync(join(dir, 'root', '_modules', 'bin.js'), Buffer.from([0xff, 0x00, 0xfe, 0x80, 1, 2, 3, 4, 5, 6, 7]));
  writeFileSync(join(dir, 'root', '_modules', 'empty.js'), '');
  opts = { file_roots: { base: [join(dir, 'root')] }, file_buffer_size: 5 };
  sent.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileClient', () => {
  it('lists and fetches files in chunks, text and binary alike', async () => {
    const client = new FileClient(request);
    expect(await client.list('base', '_modules')).toEqual(['_modules/bin.js', '_modules/empty.js', '_modules/text.ts']);
    expect(sent[0]).toEqual({ saltenv: 'base', prefix: '_modules', cmd: '_file_list' });
    const out = join(dir, 'cache', 'text.ts');
    expect(await client.fetch('base', '_modules/text.ts', out)).toBe(true);
    expect(readFileSync(out, 'utf8')).toBe('é'.repeat(20));
    expect(sent.slice(1).map((l) => l.loc)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40]);
    const bin = join(dir, 'cache', 'bin.js');
    expect(await client.fetch('base', '_modules/bin.js', bin)).toBe(true);
    expect(readFileSync(bin)).toEqual(Buffer.from([0xff, 0x00, 0xfe, 0x80, 1, 2, 3, 4, 5, 6, 7]));
  });

  it('fetches empty files, reports missing ones, and gunzips', async () => {
    const client = new FileClient(request, { gzip: 6 });
    const empty = join(dir, 'cache', 'empty.js');
    expect(await client.fetch('base', '_modules/empty.js', empty)).toBe(true);
    expect(readFileSync(empty, 'utf8')).toBe('');
    expect(await client.fetch('base', '_modules/nope.js', join(dir, 'cache', 'nope.js'))).toBe(false);
    expect(existsSync(join(dir, 'cache', 'nope.js'))).toBe(false);
    const text = join(dir, 'cache', 'gz.ts');
    expect(await client.fetch('base', '_modules/text.ts', text)).toBe(true);
    expect(readFileSync(text, 'utf8')).toBe('é'.repeat(20));
    expect(sent.at(-1)).toMatchObject({ gzip: 6 });
  });

  it('refuses malformed replies with typed errors', async () => {
    await expect(new FileClient(async () => 'bad load').list('base')).rejects.toMatchObject({ code: 'BAD_LOAD' });
    await expect(new FileClient(async () => [1]).list('base')).rejects.toMatchObject({ code: 'BAD_LOAD' });
    await expect(new FileClient(async () => ({ data: 5, dest: 'x' })).fetch('base', 'x', join(dir, 'x'))).rejects.toMatchObject({
      code: 'BAD_LOAD',
    });
    await expect(
      new FileClient(async () => ({ data: 'a', dest: 'x' }), { maxChunks: 3 }).fetch('base', 'x', join(dir, 'y')),
    ).rejects.toMatchObject({
      code: 'BAD_LOAD',
    });
    expect(existsSync(join(dir, 'y'))).toBe(false);
  });
});
