/**
 * The commands' V8 code cache (src/cli/compile-cache.ts), in child processes of the built tree:
 * a first run writes an entry per module, a second run with them behaves the same (a
 * shebang file, a module that uses import(), require.resolve); a folder others may write is not
 * used; BRINE_COMPILE_CACHE=0 turns it off.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileCacheDir, nameHash } from '../../src/cli/compile-cache';

const REPO = join(__dirname, '..', '..');
const root = mkdtempSync(join(tmpdir(), 'brine-compile-cache-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

writeFileSync(join(root, 'tool.js'), "#!/usr/bin/env node\nmodule.exports = (x) => `tool:${x}:${require.resolve('./dyn.js') !== ''}`;\n");
writeFileSync(join(root, 'dyn.js'), "exports.os = () => import('node:os').then((m) => typeof m.hostname);\n");

function run(cache: string): string {
  const script = [
    `require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))}).enableCompileCache(${JSON.stringify(cache)});`,
    `const tool = require(${JSON.stringify(join(root, 'tool.js'))});`,
    `require(${JSON.stringify(join(root, 'dyn.js'))}).os().then((t) => process.stdout.write(tool(t)));`,
  ].join('\n');
  const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
  return res.stdout;
}

describe('the code cache of the commands', () => {
  it("names an entry by 16 hex digits of its file's path, the same each run, different for every file of a big tree", () => {
    expect(nameHash('/srv/brine/dist/src/cli/main.js')).toMatch(/^[0-9a-f]{16}$/);
    expect(nameHash('/srv/brine/dist/src/cli/main.js')).toBe(nameHash('/srv/brine/dist/src/cli/main.js'));
    // Paths that differ by one character, a swapped pair, or only in length.
    const paths = new Set<string>();
    for (let i = 0; i < 20_000; i++) paths.add(`/usr/lib/node_modules/brine/dist/src/m${i}.js`);
    paths.add('/a/ab.js').add('/a/ba.js').add('/a/b.js').add('/a/b.js\0');
    expect(new Set([...paths].map(nameHash)).size).toBe(paths.size);
  });

  it('writes entries on the first run and gives the same results from them on the next', () => {
    const cache = join(root, 'cache');
    expect(run(cache)).toBe('tool:function:true');
    const entries = readdirSync(cache);
    // tool.js is cached; dyn.js (it uses import()) is compiled by Node itself. Nothing of brine's
    // was required, so there is no resolution table.
    expect(entries).toHaveLength(1);
    expect(run(cache)).toBe('tool:function:true');
    expect(readdirSync(cache)).toEqual(entries);
  });

  it("remembers how brine's requires resolved, and resolves again a file that is gone", () => {
    const cache = join(root, 'resolve');
    const script = [
      `require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))}).enableCompileCache(${JSON.stringify(cache)});`,
      `const { versionAnswer } = require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'main.js'))});`,
      `process.stdout.write(versionAnswer('salt-call', ['--version']));`,
    ].join('\n');
    const once = () => {
      const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      return res.stdout;
    };
    expect(once()).toBe('salt-call 3007.10 (Chlorine)\n');
    const tables = readdirSync(cache).filter((f) => f.startsWith('resolve-'));
    expect(tables).toHaveLength(1);
    const table = join(cache, tables[0]);
    const known = JSON.parse(readFileSync(table, 'utf8')) as Record<string, string>;
    const key = Object.keys(known).find((k) => k.endsWith('\0./quick-parse'));
    expect(key && known[key]).toBe(join(REPO, 'dist', 'src', 'cli', 'quick-parse.js'));
    expect(once()).toBe('salt-call 3007.10 (Chlorine)\n');
    // A table pointing at a file that is no longer there (a rebuild moved it): resolved again.
    writeFileSync(table, JSON.stringify({ ...known, [key!]: join(root, 'gone.js') }));
    expect(once()).toBe('salt-call 3007.10 (Chlorine)\n');
    expect((JSON.parse(readFileSync(table, 'utf8')) as Record<string, string>)[key!]).toBe(known[key!]);
  });

  it("removes an earlier brine's entries (SHA-1 names) with the old tables, and nothing of its own", () => {
    const cache = join(root, 'earlier');
    const sha1Name = 'a'.repeat(40);
    const shared = 'b'.repeat(16);
    mkdirSync(join(cache, 'short'), { recursive: true, mode: 0o700 });
    const old = [join(cache, sha1Name), join(cache, 'short', sha1Name), join(cache, 'short', shared), join(cache, 'resolve-0000.json')];
    for (const f of old) writeFileSync(f, 'old');
    const script = [
      `require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))}).enableCompileCache(${JSON.stringify(cache)});`,
      `require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'main.js'))});`,
    ].join('\n');
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    const left = readdirSync(cache);
    expect(left).not.toContain(sha1Name);
    expect(left).not.toContain('resolve-0000.json');
    expect(readdirSync(join(cache, 'short'))).toEqual([]);
    // This run's own: a new table and entries named by nameHash (16 hex digits).
    expect(left.filter((f) => f.startsWith('resolve-'))).toHaveLength(1);
    expect(left.filter((f) => /^[0-9a-f]{16}$/.test(f)).length).toBeGreaterThan(0);
  });

  /**
   * How V8 runs a hot function at start, and after QUICK_START_MS, in a child with the cache
   * enabled with `options`; `then` runs after the second look (its own looks added). Each look is
   * %GetOptimizationStatus's bits 4 (16, optimized: TurboFan) and 15 (32768, baseline code:
   * Sparkplug).
   */
  function compiledWhen(cache: string | undefined, options: string, then = '', nodeFlags: string[] = []): Record<string, number> {
    const script = [
      `const cc = require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))});`,
      `cc.enableCompileCache(${cache === undefined ? 'undefined' : JSON.stringify(cache)}, ${options});`,
      'function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }',
      'const run = () => { for (let k = 0; k < 2000; k++) hot(1000); return %GetOptimizationStatus(hot) & (16 | 32768); };',
      'const seen = { before: run() };',
      `setTimeout(() => { seen.later = run(); ${then} process.stdout.write(JSON.stringify(seen)); }, cc.QUICK_START_MS + 50);`,
    ].join('\n');
    const res = spawnSync(process.execPath, [...nodeFlags, '--allow-natives-syntax', '-e', script], {
      encoding: 'utf8',
      env: cache === undefined ? { ...process.env, BRINE_COMPILE_CACHE: '0' } : process.env,
    });
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as Record<string, number>;
  }

  it('runs a short command without TurboFan and Sparkplug for its first QUICK_START_MS, then compiles as usual', () => {
    const cache = join(root, 'quick');
    const seen = compiledWhen(cache, '{ shortLived: true }');
    // Interpreted only, then optimized (and the function's Sparkplug code, if it got any on the
    // way, is V8's business).
    expect(seen.before).toBe(0);
    expect(seen.later & 16).toBe(16);
    // Its code cache is kept apart from the daemons' (V8 rejects cached code made under other flags).
    expect(readdirSync(join(cache, 'short'))).toEqual(['other']);
  });

  it('turns the compilers on after QUICK_START_MS with no cache, when node was started without them (bin/*)', () => {
    const seen = compiledWhen(undefined, '{ shortLived: true }', '', ['--no-turbofan', '--no-sparkplug']);
    expect(seen.before).toBe(0);
    expect(seen.later & 16).toBe(16);
  });

  it("keeps each quiet command's entries apart from the others'", () => {
    const cache = join(root, 'per-command');
    for (const command of ['salt', 'salt-call']) {
      const script = [
        `require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))}).enableCompileCache(${JSON.stringify(cache)}, { shortLived: true, command: '${command}' });`,
        `process.stdout.write(require(${JSON.stringify(join(root, 'tool.js'))})('x'));`,
      ].join('\n');
      const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout).toBe('tool:x:true');
    }
    expect(readdirSync(join(cache, 'short')).sort()).toEqual(['salt', 'salt-call']);
    // The same module, one entry in each command's folder.
    expect(readdirSync(join(cache, 'short', 'salt'))).toEqual(readdirSync(join(cache, 'short', 'salt-call')));
    expect(readdirSync(join(cache, 'short', 'salt'))).toHaveLength(1);
  });

  it('runs a daemon that asked for it (salt-minion) without TurboFan and Sparkplug until optimizeFromNow()', () => {
    const cache = join(root, 'on-demand');
    // Past the short commands' QUICK_START_MS: still interpreted only, until asked.
    const seen = compiledWhen(cache, '{ optimizeOnDemand: true }', 'cc.optimizeFromNow(); seen.after = run();');
    expect(seen.before).toBe(0);
    expect(seen.later).toBe(0);
    expect(seen.after & 16).toBe(16);
    expect(readdirSync(join(cache, 'short'))).toEqual(['other']);
  });

  it('keeps Sparkplug off until optimizeFromNow(), as TurboFan', () => {
    const cache = join(root, 'baseline');
    // %CompileBaseline compiles a function with Sparkplug when the flag allows it, and (under
    // --fuzzing) does nothing otherwise: asked once while the compilers are off, once after.
    const script = [
      `const cc = require(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'compile-cache.js'))});`,
      `cc.enableCompileCache(${JSON.stringify(cache)}, { optimizeOnDemand: true });`,
      'function early(n) { return n + 1; }',
      'function late(n) { return n + 2; }',
      'early(1);',
      'late(1);',
      '%CompileBaseline(early);',
      'cc.optimizeFromNow();',
      '%CompileBaseline(late);',
      'const baseline = (f) => %GetOptimizationStatus(f) & 32768;',
      'process.stdout.write(JSON.stringify({ early: baseline(early), late: baseline(late) }));',
    ].join('\n');
    const res = spawnSync(process.execPath, ['--allow-natives-syntax', '--fuzzing', '-e', script], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ early: 0, late: 32768 });
  });

  it('ignores a folder that others may write, and is off with BRINE_COMPILE_CACHE=0', () => {
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(run(open)).toBe('tool:function:true');
    expect(readdirSync(open)).toEqual([]);
    expect(compileCacheDir({ BRINE_COMPILE_CACHE: '0' })).toBeUndefined();
    expect(compileCacheDir({ BRINE_COMPILE_CACHE: '/x/y' })).toBe('/x/y');
  });
});
