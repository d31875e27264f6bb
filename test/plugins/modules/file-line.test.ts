import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { editLines } from '../../../plugins/file/file-line';

/**
 * file.line as Salt 3007.10's salt/modules/file.py edits: the examples of its own docstring run
 * through the module as a user calls it, and the quirks of `_set_line` through the pure editor.
 * Every expected text, diff and error here is what Salt 3007.10's `file.line` gave for the same
 * call (run from ../shared/salt-ref on this host).
 */
let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await createHarness({ shell: new NodeShell() });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'brine-file-line-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONF = '[some_config]\n# Some config file\n# this line will go away\n\nhere=False\naway=True\ngoodybe=away\n';

async function line(path: string, kwargs: Record<string, unknown>): Promise<unknown> {
  return (await h.call('file.line', [path], kwargs)).return;
}

describe('file.line (execution function)', () => {
  it('delete removes the first matching line on each run, as the docstring shows', async () => {
    const f = join(dir, 'delete.conf');
    writeFileSync(f, CONF);
    const diff = await line(f, { mode: 'delete', match: 'away' });
    expect(diff).toBe(
      '--- \n+++ \n@@ -1,6 +1,5 @@\n [some_config]\n # Some config file\n-# this line will go away\n \n here=False\n away=True\n',
    );
    expect(readFileSync(f, 'utf8')).toBe('[some_config]\n# Some config file\n\nhere=False\naway=True\ngoodybe=away\n');
    await line(f, { mode: 'delete', match: 'away' });
    await line(f, { mode: 'delete', match: 'away', show_changes: false });
    expect(readFileSync(f, 'utf8')).toBe('[some_config]\n# Some config file\n\nhere=False\n');
    expect(await line(f, { mode: 'delete', match: 'away' })).toBe(false);
  });

  it('replace replaces the first line found on each pass', async () => {
    const f = join(dir, 'replace.conf');
    writeFileSync(f, CONF);
    for (let i = 0; i < 3; i++) expect(await line(f, { mode: 'replace', match: 'away', content: 'here', show_changes: false })).toBe(true);
    expect(readFileSync(f, 'utf8')).toBe('[some_config]\n# Some config file\nhere\n\nhere=False\nhere\nhere\n');
  });

  it('insert between after and before adds the line on every run; ensure refuses other lines between them', async () => {
    const f = join(dir, 'insert.txt');
    writeFileSync(f, 'insert after me\nsomething\ninsert before me\n');
    const kw = { mode: 'insert', after: 'insert after me', before: 'insert before me', content: 'thrice', show_changes: false };
    for (let i = 0; i < 3; i++) await line(f, kw);
    expect(readFileSync(f, 'utf8')).toBe('insert after me\nsomething\nthrice\nthrice\nthrice\ninsert before me\n');

    writeFileSync(f, 'insert after me\nsomething else\nand more\ninsert before me\n');
    expect(await line(f, { ...kw, mode: 'ensure' })).toBe('ERROR: Found more than one line between boundaries "before" and "after".');
    writeFileSync(f, 'insert after me\ninsert before me\n');
    expect(await line(f, { ...kw, mode: 'ensure' })).toBe(true);
    expect(await line(f, { ...kw, mode: 'ensure' })).toBe(false);
    expect(readFileSync(f, 'utf8')).toBe('insert after me\nthrice\ninsert before me\n');
  });

  it('ensure after a line takes its indentation, and (as Salt 3007.10) adds it again next run, since it compares the indented line', async () => {
    const f = join(dir, 'nsswitch.conf');
    writeFileSync(f, 'passwd: files\n  hosts: files dns\nprotocols: db files\n');
    const kw = { content: 'networks: files', after: 'hosts:.*?', mode: 'ensure', show_changes: false };
    expect([await line(f, kw), await line(f, kw)]).toEqual([true, true]);
    expect(readFileSync(f, 'utf8')).toBe('passwd: files\n  hosts: files dns\n  networks: files\n  networks: files\nprotocols: db files\n');
    const flat = join(dir, 'flat.conf');
    writeFileSync(flat, 'hosts: files dns\n');
    expect([await line(flat, kw), await line(flat, kw)]).toEqual([true, false]);
    expect(readFileSync(flat, 'utf8')).toBe('hosts: files dns\nnetworks: files\n');
  });

  it("answers Salt's errors for a missing file, a missing or unknown mode, missing content and an ambiguous anchor", async () => {
    const f = join(dir, 'errors.txt');
    writeFileSync(f, 'a\nb\na\n');
    expect(await line(join(dir, 'none'), { mode: 'delete' })).toBe(`ERROR: File "${join(dir, 'none')}" does not exists or is not a file.`);
    expect(await line(join(dir, 'none'), { mode: 'delete', quiet: true })).toBe(false);
    expect(await line(f, { content: 'x' })).toBe('ERROR: Mode was not defined. How to process the file?');
    expect(await line(f, { content: 'x', mode: 'Sideways' })).toBe('ERROR: Unknown mode: "sideways"');
    expect(await line(f, { mode: 'ensure', after: 'b' })).toBe('ERROR: Content can only be empty if mode is "delete"');
    expect(await line(f, { mode: 'insert', content: 'x' })).toBe(
      'ERROR: On insert either "location" or "before/after" conditions are required.',
    );
    expect(await line(f, { mode: 'insert', content: 'x', after: 'nothing here' })).toBe('ERROR: Neither before or after was found in file');
    expect(await line(f, { mode: 'insert', content: 'x', after: '[ab]', show_changes: false })).toBe(
      'ERROR: Found more than expected occurrences in "after" expression',
    );
    expect(readFileSync(f, 'utf8')).toBe('a\nb\na\n');
  });

  it('backup=True keeps the old text as path.YYYY-MM-DD-HH-MM-SS', async () => {
    const sub = mkdtempSync(join(dir, 'backup-'));
    const f = join(sub, 'b.txt');
    writeFileSync(f, 'one\n');
    await line(f, { mode: 'insert', location: 'start', content: 'zero', backup: true });
    expect(readFileSync(f, 'utf8')).toBe('zero\none\n');
    const copies = readdirSync(sub).filter((n) => n !== 'b.txt');
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^b\.txt\.\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d$/);
    expect(readFileSync(join(sub, copies[0]), 'utf8')).toBe('one\n');
  });
});

describe("_set_line's quirks, kept", () => {
  it('insert at the end of a file that ends with a newline leaves an empty line first (Salt appends after its empty last line)', () => {
    expect(editLines('a\nb\n', { mode: 'insert', location: 'end', content: 'c', indent: true })).toBe('a\nb\n\nc');
    expect(editLines('a\nb', { mode: 'insert', location: 'end', content: 'c', indent: true })).toBe('a\nb\nc');
  });

  it('insert at the start takes the first line ending, CRLF included', () => {
    expect(editLines('a\r\nb\r\n', { mode: 'insert', location: 'start', content: 'z', indent: true })).toBe('z\r\na\r\nb\r\n');
  });

  it('delete removes every copy of the first matching line; replace only the first', () => {
    expect(editLines('x=1\ny\nx=1\nx=2\n', { mode: 'delete', match: '^x', indent: true })).toBe('y\nx=2\n');
    expect(editLines('x=1\ny\nx=1\n', { mode: 'replace', match: 'x=', content: '  z', indent: true })).toBe('z\ny\nx=1\n');
  });

  it('indent copies the anchor line leading blanks unless indent=False', () => {
    expect(editLines('\tkey\n', { mode: 'ensure', after: 'key', content: 'value', indent: true })).toBe('\tkey\n\tvalue\n');
    expect(editLines('\tkey\n', { mode: 'ensure', after: 'key', content: 'value', indent: false })).toBe('\tkey\nvalue\n');
  });

  it('a pattern is tried as a regex and as a plain fragment', () => {
    expect(editLines('a (b)\nc\n', { mode: 'delete', match: 'a (b)', indent: true })).toBe('c\n');
  });
});
