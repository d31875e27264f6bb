import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, rmdir, writeFile, rename } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { CommandExecutionError } from '../api/errors';
import type { ExtensionForm, SyncOptions } from '../api/control';
import type { ILogger } from '../api/services';
import { transpilePluginSource } from '../loader/host-require';
import type { RemoteFiles } from '../../core/minion/file-cache';

/**
 * The master's files as the minion reaches them (Salt's `RemoteClient`): list the files under a
 * prefix of one saltenv, fetch one to a local path, and (optionally) its digest and the saltenvs.
 */
export type MasterFiles = RemoteFiles;

/** Where synced code lives: Salt's `extension_modules` option, default `<cachedir>/extmods`. */
export function extensionModulesDir(config: { get<T>(key: string, d?: T): T }): string {
  const explicit = config.get<unknown>('extension_modules');
  if (typeof explicit === 'string' && explicit !== '') return explicit;
  const cachedir = config.get<unknown>('cachedir');
  if (typeof cachedir !== 'string' || cachedir === '') {
    throw new CommandExecutionError('The minion config gives neither extension_modules nor cachedir: nowhere to sync modules to');
  }
  return join(cachedir, 'extmods');
}

const SOURCE = /\.(ts|js|cjs)$/;

/** The forms brine syncs; each lands in `<extension_modules>/<form>/`, a module dir of the loader. */
export const EXTENSION_FORMS: readonly ExtensionForm[] = ['modules', 'states', 'grains'];

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}

async function listRecursively(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

async function removeEmptyDirs(root: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true, recursive: true });
  } catch {
    return;
  }
  // Deepest first, so a parent is empty once its children are gone.
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name))
    .sort((a, b) => b.length - a.length);
  for (const d of dirs) {
    try {
      await rmdir(d);
    } catch {
      // not empty: keep it
    }
  }
}

/**
 * Salt's `salt.utils.extmods.sync` for brine: fetch `_<form>/**` (`.ts`, `.js`, `.cjs`; not
 * `.d.ts`) from each saltenv into `<extension_modules>/<form>/`, TypeScript transpiled to `.js`.
 * A file is rewritten only when its content changed; with `clean` (Salt's
 * `clean_dynamic_modules`, default true) files no saltenv offers any more are removed.
 * Returns Salt's `(ret, touched)`: the `<form>.<name>` of each new or changed file, and whether
 * anything was written or removed.
 *
 * @example
 * await syncExtensions({ files, extensionModules: '/var/cache/salt/minion/extmods', cachedir }, 'modules', ['base'])
 * // { changed: ['modules.hello'], touched: true }
 */
export async function syncExtensions(
  ctx: { files: MasterFiles; extensionModules: string; cachedir: string; clean?: boolean; logger?: ILogger },
  form: ExtensionForm,
  saltenvs: string[],
  options: SyncOptions = {},
): Promise<{ changed: string[]; touched: boolean }> {
  if (!EXTENSION_FORMS.includes(form)) throw new CommandExecutionError(`Cannot sync '${String(form)}': only ${EXTENSION_FORMS.join(', ')}`);
  const modDir = join(ctx.extensionModules, form);
  await mkdir(modDir, { recursive: true, mode: 0o700 });
  const prefix = `_${form}`;
  const changed: string[] = [];
  const wanted = new Set<string>();
  for (const saltenv of saltenvs) {
    ctx.logger?.info("Syncing %s for environment '%s'", form, saltenv);
    const listed = await ctx.files.list(saltenv, prefix);
    for (const path of listed) {
      if (!path.startsWith(`${prefix}/`) || !SOURCE.test(path) || path.endsWith('.d.ts')) continue;
      const rel = path.slice(prefix.length + 1);
      const relname = rel.replace(SOURCE, '').split('/').join('.');
      if (options.whitelist && !options.whitelist.includes(relname)) continue;
      if (options.blacklist && options.blacklist.includes(relname)) continue;
      const destRel = rel.replace(/\.ts$/, '.js');
      // The first saltenv that offers a name wins, as in Salt.
      if (wanted.has(destRel)) continue;
      // Salt's cache location for fetched files: <cachedir>/files/<saltenv>/<path>.
      const cached = join(ctx.cachedir, 'files', saltenv, ...path.split('/'));
      if (!(await ctx.files.fetch(saltenv, path, cached))) continue;
      wanted.add(destRel);
      let body: Buffer = await readFile(cached);
      if (rel.endsWith('.ts')) body = Buffer.from(transpilePluginSource(body.toString('utf8'), cached), 'utf8');
      const dest = join(modDir, ...destRel.split('/'));
      const existing = await readOrNull(dest);
      if (existing && sha256(existing) === sha256(body)) continue;
      await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
      const tmp = `${dest}.tmp-${process.pid}`;
      await writeFile(tmp, body, { mode: 0o600 });
      await rename(tmp, dest);
      ctx.logger?.info("Copying '%s' to '%s'", cached, dest);
      changed.push(`${form}.${relname}`);
    }
  }
  let touched = changed.length > 0;
  if (ctx.clean ?? true) {
    for (const rel of await listRecursively(modDir)) {
      if (wanted.has(rel.split(sep).join('/'))) continue;
      await rm(join(modDir, rel), { force: true });
      touched = true;
    }
    await removeEmptyDirs(modDir);
  }
  return { changed, touched };
}
