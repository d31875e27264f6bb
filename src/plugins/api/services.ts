/**
 * The services a plugin can ask for in its constructor. Each service id shares its name with its
 * interface (VS Code's convention), so `@inject(IShell) shell: IShell` reads as one thing.
 */

/** How {@link IShell.run} runs a command. */
export interface ShellRunOptions {
  /** Working directory; must be absolute and exist. Default: the home directory of the runner. */
  cwd?: string;
  /** Variables added to (or, with `cleanEnv`, replacing) the minion's environment. */
  env?: Record<string, string>;
  /** Start from an empty environment instead of the minion's. */
  cleanEnv?: boolean;
  /** Text written to the command's standard input (stdin is closed after it). */
  stdin?: string;
  /** Seconds before the whole process group is killed (SIGKILL). */
  timeout?: number;
  /** Octal umask for the command, e.g. `'077'`. Zero is refused, as Salt refuses it. */
  umask?: string | number;
  /** Run as this user; only possible when the minion runs as root. */
  runas?: string;
  /** Run with this group (a name or a gid); only possible when the minion runs as root or is in it. */
  group?: string;
  /**
   * Salt's `python_shell`: `true` hands a string command to `shell -c` (pipes, redirections);
   * `false` splits a string command the way POSIX `shlex` does and executes it directly.
   * An argv array is always executed directly.
   */
  pythonShell?: boolean;
  /** The shell used when `pythonShell` is true. Default: `$SHELL` or `/bin/sh`. */
  shell?: string;
  /** Send stderr into the stdout pipe, interleaved in the order written (Salt's `cmd.run`). */
  mergeStderr?: boolean;
  /** Aborting kills the whole process group (job timeout, `saltutil.kill_job`). */
  signal?: AbortSignal;
}

/** What a finished command left behind. Output is decoded as UTF-8 and not stripped. */
export interface ShellResult {
  pid: number;
  /** Exit status; 128+n when killed by signal n. */
  retcode: number;
  stdout: string;
  stderr: string;
  /** True when `timeout` elapsed and the process group was killed. */
  timedOut: boolean;
}

/**
 * Runs commands on the minion.
 *
 * @example
 * const res = await this.shell.run('echo hi; exit 3', { pythonShell: true });
 * // { pid: 4242, retcode: 3, stdout: 'hi\n', stderr: '', timedOut: false }
 */
export interface IShell {
  run(command: string | string[], options?: ShellRunOptions): Promise<ShellResult>;
  /** Start a command without waiting for it (Salt's `cmd.run_bg`); `stdin`, `timeout`, `signal`, `mergeStderr` do not apply. */
  runBackground(command: string | string[], options?: ShellRunOptions): Promise<{ pid: number }>;
  /** The absolute path of an executable found on PATH, or null. */
  which(name: string): Promise<string | null>;
}
/** Service id of {@link IShell}. @example constructor(@inject(IShell) private readonly shell: IShell) {} */
export const IShell: unique symbol = Symbol.for('brine.IShell');

/**
 * The minion's grains: computed once at start (and on refresh), read by every job.
 *
 * @example
 * this.grains.get('os');                       // 'Debian'
 * this.grains.get('ip_interfaces:eth0', []);   // walks nested maps with ':'
 */
export interface IGrains {
  /** Walk nested maps (and list indexes) by `delimiter`; `defaultValue` when a step is missing. */
  get(path: string, defaultValue?: unknown, delimiter?: string): unknown;
  /** A copy of all grains. */
  all(): Record<string, unknown>;
  /** Merge values into the static grains file (YAML in the config dir) and into the grains. */
  setStatic(values: Record<string, unknown>): Promise<void>;
  /** Remove keys from the static grains file and the grains. */
  deleteStatic(keys: string[]): Promise<void>;
}
/** Service id of {@link IGrains}. @example constructor(@inject(IGrains) private readonly grains: IGrains) {} */
export const IGrains: unique symbol = Symbol.for('brine.IGrains');

/**
 * The minion configuration, read-only.
 *
 * @example
 * const hashType = this.config.get('hash_type', 'sha256');
 */
export interface IConfig {
  get<T = unknown>(key: string, defaultValue?: T): T;
  /** A copy of every option. */
  all(): Record<string, unknown>;
}
/** Service id of {@link IConfig}. @example constructor(@inject(IConfig) private readonly config: IConfig) {} */
export const IConfig: unique symbol = Symbol.for('brine.IConfig');

/**
 * The minion's log.
 *
 * @example
 * this.log.warning('package %s not found', name);
 */
export interface ILogger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warning(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}
/** Service id of {@link ILogger}. @example constructor(@inject(ILogger) private readonly log: ILogger) {} */
export const ILogger: unique symbol = Symbol.for('brine.ILogger');

/**
 * The job being run. `retcode` starts at 0 and is what the job reports (Salt's
 * `__context__['retcode']`); cross-calls through {@link ISalt} share it, as in Salt.
 *
 * @example
 * this.job.retcode = res.retcode;           // cmd.run: the command's exit code
 * if (this.job.signal.aborted) return false; // the job was killed or timed out
 */
export interface IJobContext {
  readonly jid: string;
  readonly fun: string;
  /** The job's `arg` exactly as published (positional values, then a `__kwarg__` map). */
  readonly args: readonly unknown[];
  readonly user: string;
  readonly tgt: unknown;
  readonly tgtType: string;
  readonly ret: string;
  readonly signal: AbortSignal;
  retcode: number;
}
/** Service id of {@link IJobContext}. @example constructor(@inject(IJobContext) private readonly job: IJobContext) {} */
export const IJobContext: unique symbol = Symbol.for('brine.IJobContext');

/**
 * Calls another module function, like Salt's `__salt__['cmd.run']('ls', cwd='/')`. Errors of the
 * called function are thrown as they are; a missing function throws `FunctionNotFoundError`.
 *
 * @example
 * const out = await this.salt.call('cmd.run', ['ls'], { cwd: '/' });
 */
export interface ISalt {
  call(fun: string, args?: readonly unknown[], kwargs?: Record<string, unknown>): Promise<unknown>;
  /** Every callable `mod.fn` name, sorted. */
  functions(): string[];
  /** Whether `mod.fn` exists. */
  has(fun: string): boolean;
}
/** Service id of {@link ISalt}. @example constructor(@inject(ISalt) private readonly salt: ISalt) {} */
export const ISalt: unique symbol = Symbol.for('brine.ISalt');

/** What {@link IPillar.compile} compiles. */
export interface PillarCompileOptions {
  /** Compile only this pillar environment (Salt's `pillarenv`). */
  pillarenv?: string | null;
  saltenv?: string | null;
  /** Command-line `pillar=` data, merged over the compiled pillar. */
  override?: Record<string, unknown>;
}

/**
 * The minion's pillar: the data its master compiled for it alone (or, with `file_client: local`,
 * that it compiled itself from its `pillar_roots`).
 *
 * @example
 * const pillar = await this.pillar.current();          // Salt's __pillar__
 * const fresh = await this.pillar.compile();           // what pillar.items returns
 * await this.pillar.refresh();                          // saltutil.refresh_pillar
 */
export interface IPillar {
  /** The pillar this minion holds (a copy); compiled on first use. */
  current(): Promise<Record<string, unknown>>;
  /** Compile the pillar afresh without keeping it. */
  compile(options?: PillarCompileOptions): Promise<Record<string, unknown>>;
  /** Compile afresh and keep it as the minion's pillar; returns it. */
  refresh(): Promise<Record<string, unknown>>;
}
/** Service id of {@link IPillar}. @example constructor(@inject(IPillar) private readonly pillar: IPillar) {} */
export const IPillar: unique symbol = Symbol.for('brine.IPillar');
