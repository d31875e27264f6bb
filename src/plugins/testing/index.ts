/**
 * A small harness to run module functions against fake services, without a master or a minion.
 * Imported as `brine/testing`.
 *
 * @example
 * import { createHarness, fakeShell } from 'brine/testing';
 * const h = await createHarness({ modules: [Pkgx], grains: { kernel: 'Linux' }, shell: fakeShell(() => ({ stdout: 'vim 9.0' })) });
 * const res = await h.call('pkgx.list');  // { return: ..., retcode: 0, success: true }
 */
import type { IGrains, IHost, IPillar, IShell, ShellResult, ShellRunOptions } from '../api';
import { BUILTIN_PLUGINS } from '../builtins';
import type { JobResult } from '../executor';
import type { LoadedPlugins } from '../loader/loader';
import { PluginRuntime } from '../runtime';
import type { MasterFiles } from '../services/extension-sync';
import type { IMasterLink } from '../api/master-link';
import { StaticConfig } from '../services/config';
import { GrainsView } from '../services/grains-store';
import { StreamLogger } from '../services/logger';
import { packArgs } from '../../core/protocol/salt-args';

/** In-memory {@link IGrains}: `setStatic`/`deleteStatic` change only the map (no file). */
export class MemoryGrains extends GrainsView implements IGrains {
  constructor(grains: Record<string, unknown> = {}) {
    super(structuredClone(grains));
  }
  async setStatic(values: Record<string, unknown>): Promise<void> {
    Object.assign(this.grains, structuredClone(values));
  }
  async deleteStatic(keys: string[]): Promise<void> {
    for (const k of keys) delete this.grains[k];
  }
}

/** One call a {@link fakeShell} received. */
export interface ShellCall {
  command: string | string[];
  options: ShellRunOptions;
}

/** A fake {@link IShell} answering with `handler`; `calls` records every run. */
export interface FakeShell extends IShell {
  readonly calls: ShellCall[];
}

/**
 * A fake shell. The handler returns part of a result (defaults: pid 1, retcode 0, empty output).
 *
 * @example
 * const shell = fakeShell((cmd) => ({ stdout: `ran ${cmd}`, retcode: 0 }), { ls: '/bin/ls' });
 */
export function fakeShell(
  handler: (command: string | string[], options: ShellRunOptions) => Partial<ShellResult> | Promise<Partial<ShellResult>>,
  executables: Record<string, string> = {},
): FakeShell {
  const calls: ShellCall[] = [];
  return {
    calls,
    async run(command, options = {}) {
      calls.push({ command, options });
      const r = await handler(command, options);
      return { pid: r.pid ?? 1, retcode: r.retcode ?? 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: r.timedOut ?? false };
    },
    async runBackground(command, options = {}) {
      calls.push({ command, options });
      // The handler's result is not waited for by the caller, as with a real background command.
      const r = await handler(command, options);
      return { pid: r.pid ?? 1 };
    },
    async which(name) {
      return executables[name] ?? null;
    },
  };
}

/**
 * The built-in modules (`state`, `test`, `cmd`, `file`, ...), for a harness that runs a
 * third-party module beside them: a state module is applied through the built-in `state` module.
 *
 * @example
 * const h = await createHarness({ modules: [...BUILTIN_PLUGINS, HelloStates] });
 * await h.call('state.single', ['hello.greeting', '/tmp/g'], { who: 'bob' });
 */
export { BUILTIN_PLUGINS };

export interface HarnessOptions {
  /** Module classes (and grains providers) to load; default: the built-ins. */
  modules?: readonly unknown[];
  /** Classes registered for their names and docs only, as a minion lists the master's runners (default none). */
  listedOnly?: readonly unknown[];
  /** Grains the modules see (no grains providers run). */
  grains?: Record<string, unknown>;
  /** Minion config options. */
  config?: Record<string, unknown>;
  shell?: IShell;
  host?: IHost;
  /** Receives log lines; default: dropped unless they are errors. */
  log?: (line: string) => void;
  /** Directories of plugin files to load too (default none). */
  moduleDirs?: readonly string[];
  /** The master's files, for `saltutil.sync_*` (default: none, so syncing fails as with `--local`). */
  files?: MasterFiles;
  /** The minion's link to its master for modules that use IMasterLink (default: none, each request a clear error as with `--local`). */
  masterLink?: IMasterLink;
  /** The minion's pillar, as a fixed map (what `state.*` and `pillar.*` see); default: none, so asking for it is an error. */
  pillar?: Record<string, unknown>;
}

/** A fixed pillar: every compile answers a copy of `data` (with `pillar=` overrides merged on top). */
function fixedPillar(data: Record<string, unknown>): IPillar {
  const copy = (): Record<string, unknown> => structuredClone(data);
  return {
    current: async () => copy(),
    compile: async (o = {}) => ({ ...copy(), ...(o.override ?? {}) }),
    refresh: async () => copy(),
  };
}

export interface Harness {
  /** The plugins new jobs run against (changes after `sys.reload_modules`). */
  readonly plugins: LoadedPlugins;
  /** The runtime behind the harness: running jobs, kill, reload, sync. */
  runtime: PluginRuntime;
  /** Run `fun` as a job from a master (jid, user root, glob target), Salt's answer included. */
  call(fun: string, args?: readonly unknown[], kwargs?: Record<string, unknown>): Promise<JobResult>;
}

let counter = 0;

/** Load modules against fake services and return a harness to call them. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const modules = options.modules ?? BUILTIN_PLUGINS;
  const runtime = await PluginRuntime.start({
    config: new StaticConfig({ id: 'minion', ...(options.config ?? {}) }),
    shell: options.shell ?? fakeShell(() => ({})),
    host: options.host,
    grains: new MemoryGrains(options.grains ?? {}),
    logger: new StreamLogger('debug', options.log ?? (() => undefined)),
    builtins: modules,
    listedOnly: options.listedOnly,
    moduleDirs: options.moduleDirs ?? [],
    files: options.files,
    masterLink: options.masterLink,
    pillar: options.pillar ? fixedPillar(options.pillar) : undefined,
  });
  return {
    get plugins() {
      return runtime.plugins;
    },
    runtime,
    call(fun, args = [], kwargs) {
      const arg = packArgs(args, kwargs);
      const jid = `2024010100000000${String(++counter % 10000).padStart(4, '0')}`;
      return runtime.run({ fun, arg, jid, user: 'root', tgt: 'minion', tgtType: 'glob', ret: '' });
    },
  };
}
