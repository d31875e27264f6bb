import { arg, Fn, IConfig, inject, InvocationError, Wheel } from 'brine/plugin';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

type Tree = { [name: string]: Tree | 'f' };

/**
 * Salt's salt.utils.files.is_text on a file's first 512 bytes: a NUL byte means binary; UTF-8
 * text is text; otherwise binary when more than 30 % of the bytes are not printable.
 */
function isText(path: string): boolean {
  const fd = openSync(path, 'r');
  const block = Buffer.alloc(512);
  let n: number;
  try {
    n = readSync(fd, block, 0, 512, 0);
  } finally {
    closeSync(fd);
  }
  const head = block.subarray(0, n);
  if (n === 0) return true;
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head);
    return true;
  } catch {
    const printable = (b: number) => (b >= 32 && b < 127) || b === 8 || b === 9 || b === 10 || b === 12 || b === 13;
    return head.filter((b) => !printable(b)).length / n <= 0.3;
  }
}

/** os.walk of one root as Salt's list_env nests it: directories are dicts, files are "f". */
function walk(dir: string): Tree {
  const out: Tree = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && existsSync(full) && statSync(full).isDirectory());
    // Like os.walk (followlinks False), a linked directory is listed but not entered.
    out[entry.name] = isDir ? (entry.isSymbolicLink() ? {} : walk(full)) : 'f';
  }
  return out;
}

/**
 * Salt's `pillar_roots` wheel module (salt/wheel/pillar_roots.py): the files under the master's
 * pillar_roots, to find, list, read and write them.
 */
@Wheel('pillar_roots', { doc: "Manage the files under the master's pillar_roots" })
export class PillarRootsWheel {
  constructor(@inject(IConfig) private readonly config: IConfig) {}

  private roots(): Record<string, string[]> {
    const roots = this.config.get<unknown>('pillar_roots', {});
    if (roots === null || typeof roots !== 'object' || Array.isArray(roots))
      throw new InvocationError('pillar_roots in the master configuration must be a dict of environment: [directories]');
    return roots as Record<string, string[]>;
  }

  @Fn({
    summary: 'Return the files found at a path in an environment, each as {path: "txt" or "bin"}',
    examples: ['salt-run wheel.pillar_roots.find top.sls'],
    args: { path: arg.string(), saltenv: arg.string({ default: 'base' }) },
  })
  find({ path, saltenv }: { path: string; saltenv: string }): Array<Record<string, string>> {
    const ret: Array<Record<string, string>> = [];
    for (const root of this.roots()[saltenv] ?? []) {
      const full = join(root, path);
      if (existsSync(full) && statSync(full).isFile()) ret.push({ [full]: isText(full) ? 'txt' : 'bin' });
    }
    return ret;
  }

  @Fn({
    summary: 'Return all the file paths of an environment, as nested dicts ({root: {dir: {file: "f"}}})',
    examples: ['salt-run wheel.pillar_roots.list_env saltenv=base'],
    args: { saltenv: arg.string({ default: 'base' }) },
  })
  list_env({ saltenv }: { saltenv: string }): Record<string, Tree> {
    const ret: Record<string, Tree> = {};
    for (const root of this.roots()[saltenv] ?? []) ret[root] = existsSync(root) && statSync(root).isDirectory() ? walk(root) : {};
    return ret;
  }

  @Fn({ summary: 'Return the file names of every environment', examples: ['salt-run wheel.pillar_roots.list_roots'], args: {} })
  list_roots(): Record<string, Array<Record<string, Tree>>> {
    return Object.fromEntries(Object.keys(this.roots()).map((env) => [env, [this.list_env({ saltenv: env })]]));
  }

  @Fn({
    summary: 'Read the text files found at a path in an environment: [{path: contents}]',
    examples: ['salt-run wheel.pillar_roots.read top.sls'],
    args: { path: arg.string(), saltenv: arg.string({ default: 'base' }) },
  })
  read(a: { path: string; saltenv: string }): Array<Record<string, string>> {
    return this.find(a)
      .map((f) => Object.entries(f)[0])
      .filter(([, form]) => form === 'txt')
      .map(([full]) => ({ [full]: readFileSync(full, 'utf8') }));
  }

  @Fn({
    summary: 'Write a file under a pillar root (the first root of the environment, or the index-th)',
    examples: ["salt-run wheel.pillar_roots.write 'key: value' common.sls"],
    args: { data: arg.string(), path: arg.string(), saltenv: arg.string({ default: 'base' }), index: arg.number({ default: 0 }) },
  })
  write({ data, path, saltenv, index }: { data: string; path: string; saltenv: string; index: number }): string {
    const roots = this.roots();
    // Salt answers these with a message, not an error.
    if (!Object.hasOwn(roots, saltenv)) return `Named environment ${saltenv} is not present`;
    if (roots[saltenv].length <= index) return `Specified index ${index} in environment ${saltenv} is not present`;
    if (isAbsolute(path)) return `The path passed in ${path} is not relative to the environment ${saltenv}`;
    const root = roots[saltenv][index];
    const dest = join(root, path);
    const rel = relative(resolve(root), resolve(dest));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return 'Invalid path';
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, data);
    return `Wrote data to file ${dest}`;
  }
}
