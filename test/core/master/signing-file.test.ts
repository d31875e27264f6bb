/**
 * Salt's signing files (autosign_file, autoreject_file): patterns matched as Salt's expr_match,
 * re-read when changed, and ignored, with a warning, when others (or, without
 * permissive_pki_access, the group) may write them, as Salt's check_permissions does.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogging } from '../../../src/core/log';
import { AutosignGrainsDir, SigningFile } from '../../../src/core/master/signing-file';

const root = mkdtempSync(join(tmpdir(), 'brine-signing-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function logged() {
  const lines: string[] = [];
  const log = createLogging({ level: 'warning', console: true, stderr: { write: (l: string) => (lines.push(l), true) } }).getLogger(
    'salt.master',
  );
  return { log, lines };
}

describe('SigningFile', () => {
  it('matches ids exactly, by glob or by regular expression, skipping comments, and re-reads a changed file', () => {
    const path = join(root, 'autosign.conf');
    writeFileSync(path, '# accepted at once\nweb1\ndb*\n^app-[0-9]+$\n', { mode: 0o600 });
    const file = new SigningFile(path);
    expect(['web1', 'db7', 'app-12', 'web2', 'app-x'].map((id) => file.matches(id))).toEqual([true, true, true, false, false]);
    writeFileSync(path, 'web2\n');
    // A new mtime: nudged forward so a coarse clock cannot hide the change.
    const later = new Date(Date.now() + 5000);
    utimesSync(path, later, later);
    expect([file.matches('web1'), file.matches('web2')]).toEqual([false, true]);
    expect(new SigningFile(join(root, 'missing.conf')).matches('web1')).toBe(false);
    expect(new SigningFile(undefined).matches('web1')).toBe(false);
  });

  it('ignores a file others may write, and one its group may write unless permissive_pki_access, saying so once', () => {
    const path = join(root, 'open.conf');
    writeFileSync(path, '*\n');
    chmodSync(path, 0o666);
    const { log, lines } = logged();
    const file = new SigningFile(path, 'autosign_file', log);
    expect(file.matches('anyone')).toBe(false);
    expect(file.matches('anyone')).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `Wrong permissions for ${path} (autosign_file): writable by others, its content is ignored; chmod go-w ${path}`,
    );
    chmodSync(path, 0o660);
    const group = logged();
    expect(new SigningFile(path, 'autoreject_file', group.log).matches('anyone')).toBe(false);
    expect(group.lines.join('')).toContain('writable by its group, its content is ignored; chmod go-w');
    expect(group.lines.join('')).toContain('(or set permissive_pki_access: True)');
    expect(new SigningFile(path, 'autosign_file', log, true).matches('anyone')).toBe(true);
  });
});

describe('AutosignGrainsDir', () => {
  it("accepts a minion that sends a grain a file in the directory names, with one of its lines (Python's str of the value)", () => {
    const dir = join(root, 'autosign_grains');
    mkdirSync(dir);
    writeFileSync(join(dir, 'role'), '# provisioned roles\nweb\ndb\n', { mode: 0o600 });
    writeFileSync(join(dir, 'rack'), '5\n', { mode: 0o600 });
    const grains = new AutosignGrainsDir(dir);
    expect(grains.matches({ role: 'web' })).toBe(true);
    expect(grains.matches({ rack: 5 })).toBe(true);
    expect(grains.matches({ role: 'mail', rack: 6 })).toBe(false);
    expect(grains.matches({ os: 'Debian' })).toBe(false);
    expect(grains.matches(undefined)).toBe(false);
    expect(new AutosignGrainsDir(join(root, 'none')).matches({ role: 'web' })).toBe(false);
  });

  it('ignores a grain file others may write, as Salt does', () => {
    const dir = join(root, 'open_grains');
    mkdirSync(dir);
    writeFileSync(join(dir, 'role'), 'web\n');
    chmodSync(join(dir, 'role'), 0o646);
    const { log, lines } = logged();
    expect(new AutosignGrainsDir(dir, log).matches({ role: 'web' })).toBe(false);
    expect(lines.join('')).toContain('(autosign_grains_dir): writable by others, its content is ignored');
  });
});
