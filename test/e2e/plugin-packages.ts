/**
 * Plugin packages as a user builds and installs them, for the plugin end-to-end test: the package
 * is compiled by the real `tsc` against the built brine (its devDependency, here a symlink to this
 * repository, with this repository's @types beside it, as `npm install` in the package folder would give), then its published files
 * (package.json and dist/) are copied into `<prefix>/node_modules/<name>`, which is what
 * `npm install --prefix <prefix> <tarball>` leaves behind.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REPO, type RunResult } from '../support/cluster';

export function runNode(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return runProgram(process.execPath, args, cwd, env);
}

export function runProgram(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Copy a package's sources into `work` and compile it with its own tsconfig.json; returns the copy. */
export async function buildPackage(source: string, work: string): Promise<string> {
  const dir = join(work, basename(source));
  cpSync(source, dir, { recursive: true, filter: (p) => !/\/(node_modules|dist)(\/|$)/.test(p.slice(source.length)) });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(REPO, join(dir, 'node_modules', 'brine'), 'dir');
  // Its other devDependencies (@types/node for `node:` imports), as `npm install` would give them.
  symlinkSync(join(REPO, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
  const tsc = await runNode([join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], dir);
  if (tsc.code !== 0) throw new Error(`tsc failed for ${dir} (exit ${tsc.code}):\n${tsc.stdout}${tsc.stderr}`);
  return dir;
}

/** Install a built package's published files into `<prefix>/node_modules/<its name>`; returns that folder. */
export function installPackage(built: string, prefix: string): string {
  const pkg = JSON.parse(readFileSync(join(built, 'package.json'), 'utf8')) as { name: string };
  const dest = join(prefix, 'node_modules', pkg.name);
  mkdirSync(dest, { recursive: true });
  cpSync(join(built, 'package.json'), join(dest, 'package.json'));
  cpSync(join(built, 'dist'), join(dest, 'dist'), { recursive: true });
  // npm installs a package's peer dependency (brine) beside it; here, this repository.
  if (!existsSync(join(prefix, 'node_modules', 'brine'))) symlinkSync(REPO, join(prefix, 'node_modules', 'brine'), 'dir');
  return dest;
}
