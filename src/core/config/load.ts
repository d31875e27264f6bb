/**
 * Read Salt's `master` / `minion` config: the main YAML file in the config dir, then the
 * `master.d/*.conf` (`minion.d/*.conf`) files in name order over it, then `include:` globs, then
 * the CLI's overrides; check every known option's type; prefix path options with root_dir.
 *
 *   const { config, warnings } = loadMasterConfig('/etc/salt', { log_level: 'debug' });
 *
 * A missing file means all defaults. Unknown options are kept and reported in `warnings` (but not
 * dotted module options such as `syslog.tag`); a bad
 * value is a ConfigError (code BAD_CONFIG) naming the file and the option; a YAML syntax error is
 * a ConfigError (code BAD_YAML) naming the file and line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';
import { checkOption, showValue } from './option-types';
import { MASTER_OPTIONS, MINION_OPTIONS, type OptionSpec } from './options';
import { prependRootDir } from './root-dir';
import type { LoadedConfig, MasterConfig, MinionConfig } from './types';
import { dictUpdate } from '../pycompat/dict-update';
import { loadYamlWithLines } from '../pycompat/yaml11-load';
import { closestName } from './suggest';

export function loadMasterConfig(configDir: string, overrides: Record<string, unknown> = {}): LoadedConfig<MasterConfig> {
  return loadConfig('master', MASTER_OPTIONS, configDir, overrides) as LoadedConfig<MasterConfig>;
}

export function loadMinionConfig(configDir: string, overrides: Record<string, unknown> = {}): LoadedConfig<MinionConfig> {
  return loadConfig('minion', MINION_OPTIONS, configDir, overrides) as LoadedConfig<MinionConfig>;
}

interface Layer {
  source: string;
  values: Record<string, unknown>;
  lines: Map<string, number>;
}

function readLayer(file: string): Layer | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ConfigError('BAD_CONFIG', `${file}: cannot read config file (${code ?? (err as Error).message})`, { cause: err });
  }
  const { value, keyLines } = loadYamlWithLines(text, file);
  if (value === null) return { source: file, values: {}, lines: keyLines };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      'BAD_CONFIG',
      `${file}: a config file must be a mapping of option: value, not ${Array.isArray(value) ? 'a list' : 'a scalar'}`,
    );
  }
  return { source: file, values: value, lines: keyLines };
}

function globFiles(pattern: string, configDir: string): string[] {
  const abs = path.isAbsolute(pattern) ? pattern : path.join(configDir, pattern);
  // The default `minion.d/*.conf` is looked up on every start, and its folder is often missing:
  // then there is nothing to match, and glob (a dozen modules) is not loaded.
  const segments = abs.split(path.sep);
  const magic = segments.findIndex((s) => /[*?[\]{}()!+@]/.test(s));
  const fixed = magic === -1 ? path.dirname(abs) : segments.slice(0, magic).join(path.sep) || path.sep;
  if (!fs.existsSync(fixed)) return [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { globSync } = require('glob') as typeof import('glob');
  return globSync(abs, { nodir: true }).sort();
}

/** salt.utils.dictupdate.update(dest, upd, merge_lists=True) on a copy: how include files combine. */
function mergeDeep(dest: Record<string, unknown>, upd: Record<string, unknown>): Record<string, unknown> {
  return dictUpdate(structuredClone(dest), upd, { mergeLists: true });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function loadConfig(
  kind: 'master' | 'minion',
  specs: Record<string, OptionSpec>,
  configDir: string,
  overrides: Record<string, unknown>,
): LoadedConfig<MasterConfig | MinionConfig> {
  if (typeof configDir !== 'string' || configDir === '')
    throw new ConfigError('BAD_CONFIG', 'the config directory must be a non-empty path');
  const dir = path.resolve(configDir);
  const mainFile = path.join(dir, kind);
  const warnings: string[] = [];
  const main = readLayer(mainFile) ?? { source: mainFile, values: {}, lines: new Map<string, number>() };

  // Files named by default_include and include: merged among themselves, then over the main file.
  const includeLayers: Layer[] = [];
  const defaultInclude = main.values.default_include ?? specs.default_include.default;
  const include = main.values.include ?? [];
  for (const [option, pattern] of [
    ['default_include', defaultInclude],
    ['include', include],
  ] as const) {
    const checked = checkOption(option === 'include' ? 'str|strlist' : 'str', pattern);
    if (!checked.ok) throw new ConfigError('BAD_CONFIG', `${mainFile}: ${option} must be ${checked.expected}, got ${showValue(pattern)}`);
    for (const p of [checked.value].flat() as string[]) {
      for (const file of globFiles(p, dir)) {
        const layer = readLayer(file);
        if (layer) includeLayers.push(layer);
      }
    }
  }
  const overrideLayer: Layer = { source: 'command line', values: overrides, lines: new Map() };
  const layers = [main, ...includeLayers, overrideLayer];

  // Check each layer's options where they were written, so messages name the right file.
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer.values)) {
      const spec = specs[name];
      const line = layer.lines.get(name);
      const where = line === undefined ? layer.source : `${layer.source} (line ${line})`;
      // `module.option` names (syslog.tag, returner.postgres.host, mysql.db, ...) are the
      // options of modules and returners, which Salt reads from the same file: not unknown.
      if (!spec && name.includes('.')) continue;
      if (!spec) {
        const guess = closestName(name, Object.keys(specs));
        warnings.push(`Unknown option '${name}' in ${where}${guess ? `; did you mean '${guess}'?` : ''}`);
        continue;
      }
      if (value === null && spec.default === null) continue;
      const checked = checkOption(spec.type, value);
      if (!checked.ok) {
        throw new ConfigError('BAD_CONFIG', `${where}: ${name} must be ${checked.expected}, got ${showValue(value)}`, {
          hint: `fix or remove '${name}' in ${layer.source}`,
        });
      }
      layer.values = { ...layer.values, [name]: checked.value };
    }
  }

  let fromIncludes: Record<string, unknown> = {};
  for (const layer of includeLayers) fromIncludes = mergeDeep(fromIncludes, layer.values);
  const opts: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) opts[name] = structuredClone(spec.default);
  Object.assign(opts, main.values, fromIncludes, overrideLayer.values);

  opts.conf_file = mainFile;
  opts.config_dir = dir;
  if (opts.log_level_logfile === null || opts.log_level_logfile === undefined) opts.log_level_logfile = opts.log_level;
  if (opts.extension_modules === null || opts.extension_modules === undefined)
    opts.extension_modules = path.posix.join(String(opts.cachedir), 'extmods');
  // Salt resolves a relative root_dir against the working directory (os.path.abspath).
  opts.root_dir = path.resolve(String(opts.root_dir));
  prependRootDir(
    opts,
    Object.keys(specs).filter((name) => specs[name].path),
  );
  return { config: opts as MasterConfig | MinionConfig, warnings };
}
