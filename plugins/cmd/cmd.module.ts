import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import {
  arg,
  Fn,
  IConfig,
  IGrains,
  IHost,
  IJobContext,
  IMinionControl,
  IShell,
  InvocationError,
  CommandExecutionError,
  Module,
  inject,
  type ShellRunOptions,
} from 'brine/plugin';

/**
 * The options every running cmd function takes, in the order of Salt's `cmd.run` signature (so
 * `salt '*' cmd.run 'ls' /tmp` sets cwd as in Salt). Other keywords, and Salt's `__pub_*` job
 * data, go to `kwargs`.
 */
const RUN_OPTIONS = {
  cwd: arg.string({ optional: true, description: 'Working directory (absolute)' }),
  stdin: arg.string({ optional: true, description: "Text for the command's standard input" }),
  runas: arg.string({ optional: true, description: 'Run as this user (the minion must run as root)' }),
  group: arg.string({ optional: true, description: 'Run with this group' }),
  shell: arg.string({ optional: true, description: "Shell for python_shell (default: the 'shell' grain)" }),
  python_shell: arg.boolean({ optional: true, description: 'Hand the command to the shell (default: True for jobs from a master)' }),
  env: arg.dict({ optional: true, description: 'Environment variables to add' }),
  clean_env: arg.boolean({ default: false, description: "Start from an empty environment instead of the minion's" }),
  rstrip: arg.boolean({ default: true, description: 'Strip trailing whitespace from the output' }),
  umask: arg.any({ optional: true, description: "Octal umask, e.g. '077'" }),
  hide_output: arg.boolean({ default: false, description: 'Return no output' }),
  timeout: arg.number({ optional: true, min: 0, description: 'Seconds before the process group is killed' }),
  ignore_retcode: arg.boolean({ default: false, description: "Do not make the command's exit code the job's" }),
  saltenv: arg.string({ default: 'base', description: 'Environment of salt:// sources' }),
  prepend_path: arg.string({ optional: true, description: 'Directory put in front of PATH' }),
  success_retcodes: arg.list({ optional: true, split: true, of: arg.integer(), description: 'Exit codes that count as success' }),
};

/** What the schema hands the cmd functions that run a command. */
interface RunOptions {
  cwd?: string;
  stdin?: string;
  runas?: string;
  group?: string;
  shell?: string;
  python_shell?: boolean;
  env?: Record<string, unknown>;
  clean_env: boolean;
  rstrip: boolean;
  umask?: unknown;
  hide_output: boolean;
  timeout?: number;
  ignore_retcode: boolean;
  saltenv: string;
  prepend_path?: string;
  success_retcodes?: number[];
  kwargs: Record<string, unknown>;
}

/** A command line, or a list of arguments executed without a shell. */
const CMD = arg.any({ description: 'A command line, or a list of arguments' });

interface CmdResult {
  pid: number;
  retcode: number;
  stdout: string;
  stderr: string;
}

/** The command as IShell takes it, or InvocationError for anything else. */
function commandOf(cmd: unknown): string | string[] {
  if (typeof cmd === 'string' && cmd.trim() !== '') return cmd;
  if (Array.isArray(cmd) && cmd.length > 0) return cmd.map(String);
  throw new InvocationError('cmd must be a command line or a list of arguments');
}

@Module('cmd', {
  file: 'cmdmod',
  doc: 'A module for shelling out. Keyword arguments follow Salt: cwd, stdin, runas, shell, python_shell, env, clean_env, prepend_path, rstrip, umask, timeout, ignore_retcode, success_retcodes, hide_output.',
})
export class CmdModule {
  constructor(
    @inject(IShell) private readonly shellService: IShell,
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IHost) private readonly host: IHost,
    // Optional: only cmd.script with a salt:// source needs the minion's file client.
    @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  /** The run options shared by the waiting and the background runs. */
  private runOptions(o: RunOptions, pythonShell: boolean): ShellRunOptions {
    let env = o.env === undefined ? undefined : Object.fromEntries(Object.entries(o.env).map(([k, x]) => [k, String(x)]));
    if (o.prepend_path) env = { ...(env ?? {}), PATH: `${o.prepend_path}:${env?.PATH ?? process.env.PATH ?? ''}` };
    return {
      cwd: o.cwd || undefined,
      env,
      cleanEnv: o.clean_env,
      umask: o.umask === undefined || o.umask === null ? undefined : (o.umask as string | number),
      runas: o.runas || undefined,
      group: o.group || undefined,
      pythonShell,
      shell: o.shell || String(this.grains.get('shell', '/bin/sh') || '/bin/sh'),
    };
  }

  /**
   * Salt: python_shell defaults to True for jobs published by a master (they carry a jid), False
   * for cross-calls (a state's, another module's) unless the minion's `cmd_safe` is False.
   */
  private pythonShell(o: RunOptions): boolean {
    return o.python_shell ?? (Boolean(o.kwargs.__pub_jid) || this.config.get<unknown>('cmd_safe', true) === false);
  }

  /**
   * Salt's `_run`: run the command, apply rstrip and success_retcodes, and make the exit code the
   * job's retcode (0 with ignore_retcode). A timeout kills the process group and answers
   * "<cmd> : Timed out after N seconds" with retcode 1, as Salt does.
   */
  private async execute(cmd: unknown, o: RunOptions, opts: { mergeStderr: boolean; forceShell?: boolean }): Promise<CmdResult> {
    const command = commandOf(cmd);
    const options: ShellRunOptions = {
      ...this.runOptions(o, opts.forceShell || this.pythonShell(o)),
      stdin: o.stdin,
      timeout: o.timeout,
      mergeStderr: opts.mergeStderr,
      signal: this.job.signal,
    };
    const res = await this.shellService.run(command, options);
    let result: CmdResult;
    if (res.timedOut) {
      const text = typeof command === 'string' ? command : command.join(' ');
      // In Salt's key order for a timeout (its _run sets them in this order).
      result = { stdout: `${text} : Timed out after ${o.timeout} seconds`, stderr: '', retcode: 1, pid: res.pid };
    } else {
      result = {
        pid: res.pid,
        retcode: (o.success_retcodes ?? [0]).includes(res.retcode) ? 0 : res.retcode,
        stdout: o.rstrip ? res.stdout.trimEnd() : res.stdout,
        stderr: o.rstrip ? res.stderr.trimEnd() : res.stderr,
      };
    }
    this.job.retcode = o.ignore_retcode ? 0 : result.retcode;
    return result;
  }

  @Fn({
    summary: 'Execute the passed command and return its output (stdout and stderr together) as a string',
    examples: [`salt '*' cmd.run "ls -l | awk '/foo/{print \\$2}'"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async run({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<string> {
    const res = await this.execute(cmd, o, { mergeStderr: true });
    return o.hide_output ? '' : res.stdout;
  }

  @Fn({
    summary: 'Execute the passed command through the shell and return its output',
    examples: [`salt '*' cmd.shell "ls -l | awk '/foo/{print \\$2}'"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async shell({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<string> {
    const res = await this.execute(cmd, o, { mergeStderr: true, forceShell: true });
    return o.hide_output ? '' : res.stdout;
  }

  @Fn({
    summary: 'Execute a command and return only its standard output',
    examples: [`salt '*' cmd.run_stdout "ls -l"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async run_stdout({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<string> {
    const res = await this.execute(cmd, o, { mergeStderr: false });
    return o.hide_output ? '' : res.stdout;
  }

  @Fn({
    summary: 'Execute a command and return only its standard error',
    examples: [`salt '*' cmd.run_stderr "ls -l"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async run_stderr({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<string> {
    const res = await this.execute(cmd, o, { mergeStderr: false });
    return o.hide_output ? '' : res.stderr;
  }

  @Fn({
    summary: 'Execute a command and return {pid, retcode, stdout, stderr}',
    examples: [`salt '*' cmd.run_all "ls -l"`],
    args: { cmd: CMD, ...RUN_OPTIONS, redirect_stderr: arg.boolean({ default: false, description: 'Send stderr into stdout' }) },
    kwargs: true,
  })
  async run_all({ cmd, redirect_stderr, ...o }: RunOptions & { cmd: unknown; redirect_stderr: boolean }): Promise<CmdResult> {
    const res = await this.execute(cmd, o, { mergeStderr: redirect_stderr });
    return o.hide_output ? { ...res, stdout: '', stderr: '' } : res;
  }

  @Fn({
    summary: 'Execute a command and return its exit code',
    examples: [`salt '*' cmd.retcode "file /bin/bash"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async retcode({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<number> {
    return (await this.execute(cmd, o, { mergeStderr: true })).retcode;
  }

  @Fn({
    summary: 'Return the path of an executable, or None',
    examples: ["salt '*' cmd.which cat"],
    args: { cmd: arg.string({ nonEmpty: true }) },
  })
  async which({ cmd }: { cmd: string }): Promise<string | null> {
    return this.shellService.which(cmd);
  }

  @Fn({
    summary: 'Whether an executable is on the PATH',
    examples: ["salt '*' cmd.has_exec cat"],
    args: { cmd: arg.string({ nonEmpty: true }) },
  })
  async has_exec({ cmd }: { cmd: string }): Promise<boolean> {
    return (await this.shellService.which(cmd)) !== null;
  }

  @Fn({
    summary: 'Start a command in the background and return {pid} without waiting for it',
    examples: [`salt '*' cmd.run_bg "sleep 60; touch /tmp/done"`],
    args: { cmd: CMD, ...RUN_OPTIONS },
    kwargs: true,
  })
  async run_bg({ cmd, ...o }: RunOptions & { cmd: unknown }): Promise<{ pid: number }> {
    return this.shellService.runBackground(commandOf(cmd), this.runOptions(o, this.pythonShell(o)));
  }

  @Fn({
    summary:
      'Download a script (salt://path from the master, or a local path) and run it with args; returns {pid, retcode, stdout, stderr}',
    examples: ["salt '*' cmd.script salt://scripts/runme.sh", `salt '*' cmd.script salt://scripts/runme.sh 'arg1 arg2 "arg 3"'`],
    args: {
      source: arg.string({ nonEmpty: true, description: 'salt:// URL or local path of the script' }),
      args: arg.string({ optional: true, description: 'Command-line arguments' }),
      ...RUN_OPTIONS,
    },
    kwargs: true,
  })
  async script(a: RunOptions & { source: string; args?: string }): Promise<CmdResult | (CmdResult & { cache_error: true })> {
    const { source, args, ...o } = a;
    let cached: string | null;
    if (source.startsWith('salt://')) {
      if (!this.control) throw new CommandExecutionError(`Cannot fetch ${source}: this loader runs without a minion`);
      cached = await this.control.cacheFile(source, o.saltenv);
    } else {
      cached = (await this.host.exists(source)) && source.startsWith('/') ? source : null;
    }
    // Salt's answer when the script cannot be cached.
    if (!cached) return { pid: 0, retcode: 1, stdout: '', stderr: '', cache_error: true };
    const dir = await mkdtemp(join(o.cwd || tmpdir(), 'brine-script-'));
    const path = join(dir, `script${extname(source.replace(/\?.*$/, ''))}`);
    try {
      await copyFile(cached, path);
      // Salt makes the copy 0500 for its owner; with runas the other user must be able to run it.
      await chmod(path, o.runas ? 0o555 : 0o500);
      if (o.runas) await chmod(dir, 0o755);
      const quoted = `'${path.replace(/'/g, `'\\''`)}'`;
      const line = args === undefined || args === '' ? quoted : `${quoted} ${args}`;
      const res = await this.execute(line, { ...o, python_shell: o.python_shell ?? true }, { mergeStderr: false });
      return o.hide_output ? { ...res, stdout: '', stderr: '' } : { ...res };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  @Fn({
    summary: 'Run a script like cmd.script and return only its exit code',
    examples: ["salt '*' cmd.script_retcode salt://scripts/runme.sh"],
    args: { source: arg.string({ nonEmpty: true }), args: arg.string({ optional: true }), ...RUN_OPTIONS },
    kwargs: true,
  })
  async script_retcode(a: RunOptions & { source: string; args?: string }): Promise<number> {
    return (await this.script(a)).retcode;
  }

  @Fn({ summary: 'Return the valid login shells listed in /etc/shells', examples: ["salt '*' cmd.shells"], args: {} })
  async shells(): Promise<string[]> {
    const text = await this.host.readFile('/etc/shells');
    if (text === null) return [];
    return text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
  }

  @Fn({
    summary: 'Return the path of the first executable found in a list of names, or None',
    examples: ["salt '*' cmd.which_bin '[pip2, pip, pip-python]'"],
    args: { cmds: arg.list({ of: arg.string(), description: 'Executable names, tried in order' }) },
  })
  async which_bin({ cmds }: { cmds: string[] }): Promise<string | null> {
    for (const c of cmds) {
      const found = await this.shellService.which(c);
      if (found) return found;
    }
    return null;
  }
}
