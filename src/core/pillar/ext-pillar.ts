/**
 * External pillar sources: the master config's `ext_pillar:` list names them with their
 * arguments, and each adds data to a minion's pillar after the pillar SLS files (or before, with
 * `ext_pillar_first`). brine ships `file_tree`, `cmd_yaml` and `cmd_json`; a plugin adds more
 * through an {@link ExtPillarRegistry}.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { fnmatch } from '../pycompat';
import { matchTarget, type Nodegroups } from '../targeting';
import { loadSaltYaml, renderFile } from '../render';
import { mergePillar } from './merge';

/** What a source gets besides its arguments. */
export interface ExtPillarContext {
  minionId: string;
  grains: Record<string, unknown>;
  /** The pillar compiled so far (Salt's `pillar` argument). */
  pillar: Record<string, unknown>;
  opts: Record<string, unknown>;
  log: { warning(msg: string): void; error(msg: string): void };
}

/** One external pillar source: `ext_pillar: [{<name>: <args>}]`. */
export interface ExtPillarSource {
  readonly name: string;
  /** `args` as written in the config: a map (keyword arguments), a list, or a single value. */
  pillar(args: unknown, ctx: ExtPillarContext): Promise<Record<string, unknown>> | Record<string, unknown>;
}

const run = promisify(execFile);

async function shellOutput(command: string): Promise<string> {
  const { stdout } = await run('/bin/sh', ['-c', command], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.replace(/\n$/, '');
}

function commandOf(args: unknown, name: string): string {
  const command = Array.isArray(args) ? args[0] : args;
  if (typeof command !== 'string' || command === '') throw new Error(`${name} needs a command: ext_pillar: [{${name}: 'command %s'}]`);
  return command;
}

/** `cmd_yaml`: a command's YAML output (`%s` is replaced by the minion id). */
export const cmdYaml: ExtPillarSource = {
  name: 'cmd_yaml',
  async pillar(args, ctx) {
    const command = commandOf(args, 'cmd_yaml').replace(/%s/g, ctx.minionId);
    try {
      const data = loadSaltYaml(await shellOutput(command));
      return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    } catch {
      ctx.log.error(`YAML data from ${command} failed to parse`);
      return {};
    }
  },
};

/** `cmd_json`: a command's JSON output (`%s` is replaced by the minion id). */
export const cmdJson: ExtPillarSource = {
  name: 'cmd_json',
  async pillar(args, ctx) {
    const command = commandOf(args, 'cmd_json').replace(/%s/g, ctx.minionId);
    try {
      const data = JSON.parse(await shellOutput(command));
      return data !== null && typeof data === 'object' && !Array.isArray(data) ? data : {};
    } catch {
      ctx.log.error(`JSON data from ${command} failed to parse`);
      return {};
    }
  },
};

interface FileTreeArgs {
  root_dir?: string;
  follow_dir_links?: boolean;
  keep_newline?: boolean | string[];
  template?: boolean;
  render_default?: string;
}

async function isDirectory(path: string, follow: boolean): Promise<boolean> {
  try {
    return (follow ? await stat(path) : await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

function keepNewline(prefix: string, file: string, keep: FileTreeArgs['keep_newline']): boolean {
  if (keep === true) return true;
  if (!Array.isArray(keep)) return false;
  const rel = prefix === '' ? file : `${prefix}/${file}`;
  return keep.some((g) => fnmatch(rel, String(g)));
}

/** Salt's `file_tree._construct_pillar`: directories are keys, files are values. */
async function fileTreePillar(top: string, args: FileTreeArgs, ctx: ExtPillarContext, prefix = ''): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const entries = await readdir(join(top, prefix), { withFileTypes: true });
  for (const entry of entries) {
    const path = join(top, prefix, entry.name);
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory() || (entry.isSymbolicLink() && args.follow_dir_links && (await isDirectory(path, true)))) {
      out[entry.name] = await fileTreePillar(top, args, ctx, rel);
      continue;
    }
    if (
      !entry.isFile() &&
      !(
        entry.isSymbolicLink() &&
        (await stat(path)
          .then((s) => s.isFile())
          .catch(() => false))
      )
    ) {
      ctx.log.error(`file_tree: ${path}: not a regular file`);
      continue;
    }
    let text = await readFile(path, 'utf8');
    if (text.endsWith('\n') && !keepNewline(prefix, entry.name, args.keep_newline)) text = text.slice(0, -1);
    out[entry.name] =
      args.template === true
        ? await renderFile({
            text,
            path,
            defaultPipe: args.render_default ?? 'jinja|yaml',
            context: { grains: ctx.grains, pillar: ctx.pillar, opts: ctx.opts },
            roots: [],
          })
        : text;
  }
  return out;
}

/**
 * `file_tree`: `<root_dir>/hosts/<minion id>/` and `<root_dir>/nodegroups/<group>/` (for the
 * nodegroups the minion is in) as pillar: directory names are keys, file contents values.
 */
export const fileTree: ExtPillarSource = {
  name: 'file_tree',
  async pillar(rawArgs, ctx) {
    const args = (
      rawArgs !== null && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? rawArgs : { root_dir: rawArgs }
    ) as FileTreeArgs;
    if (typeof args.root_dir !== 'string' || args.root_dir === '')
      throw new Error('file_tree needs root_dir: ext_pillar: [{file_tree: {root_dir: /srv/ext_pillar}}]');
    const roots = isAbsolute(args.root_dir)
      ? [args.root_dir]
      : ((ctx.opts.pillar_roots as Record<string, string[]> | undefined)?.[String(ctx.opts.pillarenv ?? 'base')] ?? []).map((r) =>
          join(r, args.root_dir!),
        );
    let result: Record<string, unknown> = {};
    for (const root of roots) {
      const groups = (ctx.opts.nodegroups ?? {}) as Nodegroups;
      const ngDir = join(root, 'nodegroups');
      if (await isDirectory(ngDir, true)) {
        for (const group of await readdir(ngDir)) {
          if (!(group in groups)) continue;
          if (!matchTarget({ tgt: group, tgtType: 'nodegroup' }, { id: ctx.minionId, grains: ctx.grains }, { nodegroups: groups }))
            continue;
          if (await isDirectory(join(ngDir, group), true))
            result = mergePillar(result, await fileTreePillar(join(ngDir, group), args, ctx));
        }
      }
      const host = join(root, 'hosts', ctx.minionId);
      if (await isDirectory(host, true)) result = mergePillar(result, await fileTreePillar(host, args, ctx));
    }
    return result;
  },
};

/** The sources `ext_pillar:` may name. */
export class ExtPillarRegistry {
  private readonly sources = new Map<string, ExtPillarSource>();

  constructor(sources: readonly ExtPillarSource[] = [fileTree, cmdYaml, cmdJson]) {
    for (const s of sources) this.add(s);
  }

  add(source: ExtPillarSource): void {
    this.sources.set(source.name, source);
  }

  get(name: string): ExtPillarSource | undefined {
    return this.sources.get(name);
  }

  names(): string[] {
    return [...this.sources.keys()].sort();
  }
}
