/**
 * The pillar cases of ../shared/salt-states (80-84, 87) through the real salt-call --local
 * (file_client local: the pillar compiled here from pillar_roots, as Salt does), compared byte
 * for byte with what Salt 3007.10 printed, exit codes included.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { REPO } from '../support/cluster';

const CASES = join(REPO, '..', 'shared', 'salt-states', 'cases');
const root = mkdtempSync(join(tmpdir(), 'brine-pillar-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function configFor(caseName: string): string {
  const dir = join(root, caseName, 'conf');
  mkdirSync(dir, { recursive: true });
  const caseDir = join(CASES, caseName);
  writeFileSync(
    join(dir, 'minion'),
    stringify({
      root_dir: join(root, caseName, 'root'),
      file_client: 'local',
      file_roots: { base: [join(caseDir, 'states')] },
      pillar_roots: { base: [join(caseDir, 'pillar')] },
      id: 'vec1',
      // The corpus ran on Debian 12: its pillar top matches os:Debian.
      grains: { os: 'Debian', os_family: 'Debian' },
    }),
  );
  return dir;
}

function saltCall(configDir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'salt-call'), '-c', configDir, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => res({ code: code ?? 1, stdout, stderr }));
  });
}

/** The runs a case stored: output file -> salt-call arguments. */
function runsOf(caseName: string): [string, string[]][] {
  const text = readFileSync(join(CASES, caseName, 'commands.txt'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [file, command] = line.split(/:\s+/, 2);
      return [file, command.trim().split(/\s+/)] as [string, string[]];
    });
}

const CASE_NAMES = [
  '80-pillar-items',
  '81-pillar-get-nested',
  '82-pillar-get-default',
  '83-pillar-get-delimiter',
  '84-pillar-raw',
  '87-pillar-render-error',
];

describe('pillar corpus cases through salt-call --local', () => {
  for (const caseName of CASE_NAMES) {
    for (const [file, args] of runsOf(caseName)) {
      it(`${caseName} ${file}: ${args.join(' ')}`, async () => {
        const res = await saltCall(configFor(caseName), args);
        expect(res.stdout).toBe(readFileSync(join(CASES, caseName, file), 'utf8'));
        const rc = readFileSync(join(CASES, caseName, 'retcodes.txt'), 'utf8').match(
          new RegExp(`^${file.replace('.', '\\.')} (\\d+)`, 'm'),
        );
        expect(res.code).toBe(Number(rc?.[1] ?? 0));
      }, 30_000);
    }
  }

  it("87: the render error is logged with its cause, as Salt logs it at salt-call's default level", async () => {
    // No -l: salt-call logs at the config's log_level (warning), as case 87's stderr.txt shows.
    const res = await saltCall(configFor('87-pillar-render-error'), ['--local', 'pillar.items', '--out', 'json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      "[CRITICAL] Rendering SLS 'broken' failed, render error:\nJinja variable 'undefined_x' is undefined; line 1\n\n---\nkey: {{ undefined_x.y }}    <======================\n---",
    );
    expect(res.stderr).toContain("[CRITICAL] Pillar render error: Rendering SLS 'broken' failed. Please see master log for details.");
    const quiet = await saltCall(configFor('87-pillar-render-error'), ['--local', 'pillar.items', '--out', 'json', '-l', 'quiet']);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(res.stdout);
  }, 30_000);
});
