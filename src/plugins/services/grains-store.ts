import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { yamlLib } from '../../core/pycompat/yaml-lib';
import { traverse } from '../../core/pycompat';
import { CommandExecutionError } from '../api/errors';
import type { IGrains, ILogger } from '../api/services';

/** Something with a `collect()` that returns grains: an instantiated `@GrainsProvider` class. */
export interface GrainsCollector {
  name: string;
  collect(): Record<string, unknown> | Promise<Record<string, unknown>>;
}

type Tree = Record<string, unknown>;

/**
 * Reading grains out of a map: `get` walks a path (Salt's `traverse_dict_and_list`) and, like
 * `all`, hands out copies so no caller can change the minion's grains by accident.
 */
export abstract class GrainsView {
  constructor(protected grains: Tree) {}

  get(path: string, defaultValue: unknown = '', delimiter = ':'): unknown {
    const found = traverse(this.grains, path, defaultValue, delimiter);
    // The default is the caller's own value (it may be a symbol); only grain data is copied.
    return found === defaultValue ? found : structuredClone(found);
  }

  all(): Record<string, unknown> {
    return structuredClone(this.grains);
  }
}

/**
 * The minion's {@link IGrains}: providers' grains merged in order, then the static grains file
 * (`<config dir>/grains`, YAML), then the config's `grains:` option, each overriding the one
 * before. Computed by {@link GrainsStore.refresh} at start and on refresh, never per job.
 *
 * @example
 * const store = new GrainsStore({ providers: [core], configGrains: { role: 'web' }, grainsFile: '/etc/salt/grains' });
 * await store.refresh();
 * store.get('role'); // 'web'
 */
export class GrainsStore extends GrainsView implements IGrains {
  private readonly providers: GrainsCollector[];
  private readonly configGrains: Tree;
  private readonly grainsFile?: string;
  private readonly log?: ILogger;
  private readonly listeners = new Set<() => void>();

  constructor(options: { providers?: GrainsCollector[]; configGrains?: Tree; grainsFile?: string; logger?: ILogger }) {
    super({});
    this.providers = options.providers ?? [];
    this.configGrains = options.configGrains ?? {};
    this.grainsFile = options.grainsFile;
    this.log = options.logger;
  }

  /**
   * Calls `listener` after every change (refresh, setStatic, deleteStatic), whichever module made
   * it: the minion sends its grains to the master then. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Recompute every grain. A provider that throws is logged and skipped; the others still count. */
  async refresh(): Promise<void> {
    const merged: Tree = {};
    for (const provider of this.providers) {
      try {
        Object.assign(merged, await provider.collect());
      } catch (err) {
        this.log?.error('grains provider %s failed: %s', provider.name, err instanceof Error ? err.message : String(err));
      }
    }
    Object.assign(merged, await this.readStaticFile(), structuredClone(this.configGrains));
    this.grains = merged;
    this.changed();
  }

  async setStatic(values: Record<string, unknown>): Promise<void> {
    const file = this.requireFile();
    const current = await this.readStaticFile();
    Object.assign(current, values);
    await this.writeStaticFile(file, current);
    Object.assign(this.grains, structuredClone(values));
    this.changed();
  }

  async deleteStatic(keys: string[]): Promise<void> {
    const file = this.requireFile();
    const current = await this.readStaticFile();
    for (const k of keys) {
      delete current[k];
      delete this.grains[k];
    }
    await this.writeStaticFile(file, current);
    this.changed();
  }

  private requireFile(): string {
    if (!this.grainsFile) {
      throw new CommandExecutionError('No grains file: the minion config gives no conf_file or config_dir');
    }
    return this.grainsFile;
  }

  private async readStaticFile(): Promise<Tree> {
    if (!this.grainsFile) return {};
    let text: string;
    try {
      text = await readFile(this.grainsFile, 'utf8');
    } catch {
      return {};
    }
    const parsed: unknown = yamlLib().parse(text);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new CommandExecutionError(`Grains file ${this.grainsFile} does not hold a YAML mapping`);
    }
    return parsed as Tree;
  }

  private async writeStaticFile(file: string, data: Tree): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    await writeFile(tmp, Object.keys(data).length === 0 ? '' : yamlLib().stringify(data), 'utf8');
    await rename(tmp, file); // atomic: a reader never sees half a file
  }
}
