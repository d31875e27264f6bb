/**
 * Salt's options that keep modules from loading, as Salt 3007's loader reads them:
 *
 * - `disable_modules` (execution modules), `disable_states`, `disable_returners`: names of the
 *   files Salt defines modules in (salt/loader/lazy.py skips a file whose name is listed), so
 *   `cmdmod` for `cmd`. A module's `file` (see ModuleOptions.file) is that name; brine also takes
 *   the module's own name (`cmd`), which Salt would pass over and leave the module running.
 * - `whitelist_modules`: the execution modules that may load, by module name: Salt checks it
 *   against the `cmd` of `cmd.run` (measured against 3007.10: `[cmd, test]` runs `cmd.run`,
 *   `[cmdmod, test]` does not, whatever Salt's docs say).
 *
 * A module kept out is not loaded at all, as in Salt: its functions are "not available".
 */
import { ConfigError } from '../../core/errors';
import type { IConfig, PluginKind } from '../api';

/** Salt's `disable_<tag>s` option of each kind this filter applies to. */
const DISABLE_OPTION: Partial<Record<PluginKind, string>> = {
  execution: 'disable_modules',
  state: 'disable_states',
  returner: 'disable_returners',
};

export class ModuleFilter {
  private constructor(
    private readonly disabled: ReadonlyMap<PluginKind, ReadonlySet<string>>,
    private readonly whitelist: ReadonlySet<string> | undefined,
  ) {}

  /** The filter a config asks for. */
  static fromConfig(config: IConfig): ModuleFilter {
    const disabled = new Map<PluginKind, ReadonlySet<string>>();
    for (const [kind, option] of Object.entries(DISABLE_OPTION) as [PluginKind, string][]) {
      const names = nameList(config, option);
      if (names.length > 0) disabled.set(kind, new Set(names));
    }
    const whitelist = nameList(config, 'whitelist_modules');
    return new ModuleFilter(disabled, whitelist.length > 0 ? new Set(whitelist) : undefined);
  }

  /** Why the module of `kind` named `name` (defined in Salt's file `file`) is kept out, or undefined when it may load. */
  refusal(kind: PluginKind, name: string, file: string | undefined): string | undefined {
    const disabled = this.disabled.get(kind);
    if (disabled) {
      if (disabled.has(name)) return `${DISABLE_OPTION[kind]} names it`;
      if (file !== undefined && disabled.has(file)) return `${DISABLE_OPTION[kind]} names its file, ${file}`;
    }
    if (kind === 'execution' && this.whitelist && !this.whitelist.has(name)) return 'whitelist_modules does not name it';
    return undefined;
  }
}

function nameList(config: IConfig, option: string): string[] {
  const value = config.get<unknown>(option, []);
  if (value === null || value === undefined || value === '') return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw new ConfigError('BAD_CONFIG', `${option} must be a list of module names, got ${JSON.stringify(value)}`, {
    hint: `fix '${option}' in the minion config`,
  });
}
