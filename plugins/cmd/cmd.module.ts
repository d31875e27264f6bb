import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import {
  Fn,
  IGrains,
  IHost,
  IJobContext,
  IMinionControl,
  IShell,
  InvocationError,
  CommandExecutionError,
  isTrue,
  Module,
  inject,
  type ShellRunOptions,
} from 'brine/plugin';

/** Keyword arguments every cmd function accepts (Salt's names). */
interface CmdKwargs {
  cwd?: unknown;
  stdin?: unknown;
  runas?: unknown;
  group?: unknown;
  shell?: unknown;
  python_shell?: unknown;
  env?: unknown;
  clean_env?: unknown;
  prepend_path?: unknown;
  rstrip?: unknown;
  umask?: unknown;
  timeout?: unknown;
  ignore_retcode?: unknown;
  success_retcodes?: unknown;
  hide_output?: unknown;
  redirect_stderr?: unknown;
  __pub_jid?: unknown;
  [other: string]: unknown;
}

interface CmdResult {
  pid: number;
  retcode: number;
  stdout: string;
  stderr: string;
}

function optionalString(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new InvocationError(`${name} must be a string`);
  return v;
}

function toEnv(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvocationError("Invalid input: 'env' must be a dict of variable names to values");
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

function toRetcodes(v: unknown): number[] {
  if (v === undefined || v === null) return [0];
  const items = Array.isArray(v) ? v : String(v).split(',');
  const codes = items.map((x) => (typeof x === 'number' ? x : Number(String(x).trim())));
  if (codes.some((c) => !Number.isInteger(c))) throw new InvocationError('success_retcodes must be a list of integers');
  return codes;
}

function toTimeout(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvocationError('timeout must be a number of seconds');
  return n;
}

@Module('cmd', { doc: 'A module for shelling out. Keyword arguments follow Salt: cwd, stdin, runas, shell, python_shell, env, clean_env, prepend_path, rstrip, umask, timeout, ignore_retcode, success_retcodes, hide_output.' })
export class CmdModule {
  constructor(
    @inject(IShell) private readonly shellService: IShell,
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IHost) private readonly host: IHost,
    // Optional: only cmd.script with a salt:// source needs the minion's file client.
    @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
  ) {}

  /** The run options shared by the waiting and the background runs. */
  private runOptions(kw: CmdKwargs, pythonShell: boolean): ShellRunOptions {
    let env = toEnv(kw.env);
    const prepend = optionalString(kw.prepend_path, 'prepend_path');
    if (prepend) env = { ...(env ?? {}), PATH: `${prepend}:${env?.PATH ?? process.env.PATH ?? ''}` };
    return {
      cwd: optionalString(kw.cwd, 'cwd'),
      env,
      cleanEnv: isTrue(kw.clean_env),
      umask: kw.umask === undefined || kw.umask === null ? undefined : (kw.umask as string | number),
      runas: optionalString(kw.runas, 'runas'),
      group: optionalString(kw.group, 'group'),
      pythonShell,
      shell: optionalString(kw.shell, 'shell') ?? String(this.grains.get('shell', '/bin/sh') || '/bin/sh'),
    };
  }

  /**
   * Salt's `_run`: run the command, apply rstrip and success_retcodes, and make the exit code the
   * job's retcode (0 with ignore_retcode). A timeout kills the process group and answers
   * "<cmd> : Timed out after N seconds" with retcode 1, as Salt does.
   */
  private async execute(cmd: unknown, kw: CmdKwargs, opts: { mergeStderr: boolean; forceShell?: boolean }): Promise<CmdResult> {
    if (!(typeof cmd === 'string' && cmd.trim() !== '') && !(Array.isArray(cmd) && cmd.length > 0)) {
      throw new InvocationError('cmd must be a command line or a list of arguments');
    }
    const command = typeof cmd === 'string' ? cmd : cmd.map(String);
    // Salt: python_shell defaults to True for jobs published by a master (they carry a jid), False for cross-calls.
    const pythonShell = opts.forceShell || (kw.python_shell === undefined || kw.python_shell === null ? Boolean(kw.__pub_jid) : isTrue(kw.python_shell));
    const timeout = toTimeout(kw.timeout);
    const successRetcodes = toRetcodes(kw.success_retcodes);
    const options: ShellRunOptions = {
      ...this.runOptions(kw, pythonShell),
      stdin: kw.stdin === undefined || kw.stdin === null ? undefined : String(kw.stdin),
      timeout,
      mergeStderr: opts.mergeStderr,
      signal: this.job.signal,
    };
    const res = await this.shellService.run(command, options);
    let result: CmdResult;
    if (res.timedOut) {
      const text = typeof command === 'string' ? command : command.join(' ');
      result = { pid: res.pid, retcode: 1, stdout: `${text} : Timed out after ${timeout} seconds`, stderr: '' };
    } else {
      const strip = kw.rstrip === undefined || isTrue(kw.rstrip);
      result = {
        pid: res.pid,
        retcode: successRetcodes.includes(res.retcode) ? 0 : res.retcode,
        stdout: strip ? res.stdout.trimEnd() : res.stdout,
        stderr: strip ? res.stderr.trimEnd() : res.stderr,
      };
    }
    this.job.retcode = isTrue(kw.ignore_retcode) ? 0 : result.retcode;
    return result;
  }

  @Fn({ summary: "Execute the passed command and return its output (stdout and stderr together) as a string", examples: [`salt '*' cmd.run "ls -l | awk '/foo/{print \\$2}'"`] })
  async run(cmd: unknown, kwargs: CmdKwargs = {}): Promise<string> {
    const res = await this.execute(cmd, kwargs, { mergeStderr: true });
    return isTrue(kwargs.hide_output) ? '' : res.stdout;
  }

  @Fn({ summary: "Execute the passed command through the shell and return its output", examples: [`salt '*' cmd.shell "ls -l | awk '/foo/{print \\$2}'"`] })
  async shell(cmd: unknown, kwargs: CmdKwargs = {}): Promise<string> {
    const res = await this.execute(cmd, kwargs, { mergeStderr: true, forceShell: true });
    return isTrue(kwargs.hide_output) ? '' : res.stdout;
  }

  @Fn({ summary: "Execute a command and return only its standard output", examples: [`salt '*' cmd.run_stdout "ls -l"`] })
  async run_stdout(cmd: unknown, kwargs: CmdKwargs = {}): Promise<string> {
    const res = await this.execute(cmd, kwargs, { mergeStderr: false });
    return isTrue(kwargs.hide_output) ? '' : res.stdout;
  }

  @Fn({ summary: "Execute a command and return only its standard error", examples: [`salt '*' cmd.run_stderr "ls -l"`] })
  async run_stderr(cmd: unknown, kwargs: CmdKwargs = {}): Promise<string> {
    const res = await this.execute(cmd, kwargs, { mergeStderr: false });
    return isTrue(kwargs.hide_output) ? '' : res.stderr;
  }

  @Fn({ summary: "Execute a command and return {pid, retcode, stdout, stderr}", examples: [`salt '*' cmd.run_all "ls -l"`] })
  async run_all(cmd: unknown, kwargs: CmdKwargs = {}): Promise<CmdResult> {
    const res = await this.execute(cmd, kwargs, { mergeStderr: isTrue(kwargs.redirect_stderr) });
    return isTrue(kwargs.hide_output) ? { ...res, stdout: '', stderr: '' } : res;
  }

  @Fn({ summary: "Execute a command and return its exit code", examples: [`salt '*' cmd.retcode "file /bin/bash"`] })
  async retcode(cmd: unknown, kwargs: CmdKwargs = {}): Promise<number> {
    return (await this.execute(cmd, kwargs, { mergeStderr: true })).retcode;
  }

  @Fn({ summary: "Return the path of an executable, or None", examples: ["salt '*' cmd.which cat"] })
  async which(cmd: unknown): Promise<string | null> {
    if (typeof cmd !== 'string' || cmd === '') throw new InvocationError('cmd must be an executable name');
    return this.shellService.which(cmd);
  }

  @Fn({ summary: "Whether an executable is on the PATH", examples: ["salt '*' cmd.has_exec cat"] })
  async has_exec(cmd: unknown): Promise<boolean> {
    if (typeof cmd !== 'string' || cmd === '') throw new InvocationError('cmd must be an executable name');
    return (await this.shellService.which(cmd)) !== null;
  }

  @Fn({ summary: "Start a command in the background and return {pid} without waiting for it", examples: [`salt '*' cmd.run_bg "sleep 60; touch /tmp/done"`] })
  async run_bg(cmd: unknown, kwargs: CmdKwargs = {}): Promise<{ pid: number }> {
    if (!(typeof cmd === 'string' && cmd.trim() !== '') && !(Array.isArray(cmd) && cmd.length > 0)) {
      throw new InvocationError('cmd must be a command line or a list of arguments');
    }
    const pythonShell = kwargs.python_shell === undefined || kwargs.python_shell === null ? Boolean(kwargs.__pub_jid) : isTrue(kwargs.python_shell);
    const command = typeof cmd === 'string' ? cmd : cmd.map(String);
    return this.shellService.runBackground(command, this.runOptions(kwargs, pythonShell));
  }

  @Fn({ summary: "Download a script (salt://path from the master, or a local path) and run it with args; returns {pid, retcode, stdout, stderr}", examples: ["salt '*' cmd.script salt://scripts/runme.sh", `salt '*' cmd.script salt://scripts/runme.sh 'arg1 arg2 "arg 3"'`] })
  async script(source: unknown, args: unknown = null, kwargs: CmdKwargs = {}): Promise<Record<string, unknown>> {
    if (typeof source !== 'string' || source === '') throw new InvocationError('source must be a salt:// URL or a local path');
    const saltenv = optionalString(kwargs.saltenv, 'saltenv') ?? 'base';
    let cached: string | null;
    if (source.startsWith('salt://')) {
      if (!this.control) throw new CommandExecutionError(`Cannot fetch ${source}: this loader runs without a minion`);
      cached = await this.control.cacheFile(source, saltenv);
    } else {
      cached = (await this.host.exists(source)) && source.startsWith('/') ? source : null;
    }
    // Salt's answer when the script cannot be cached.
    if (!cached) return { pid: 0, retcode: 1, stdout: '', stderr: '', cache_error: true };
    const cwd = optionalString(kwargs.cwd, 'cwd');
    const dir = await mkdtemp(join(cwd ?? tmpdir(), 'brine-script-'));
    const path = join(dir, `script${extname(source.replace(/\?.*$/, ''))}`);
    try {
      await copyFile(cached, path);
      // Salt makes the copy 0500 for its owner; with runas the other user must be able to run it.
      await chmod(path, kwargs.runas ? 0o555 : 0o500);
      if (kwargs.runas) await chmod(dir, 0o755);
      const quoted = `'${path.replace(/'/g, `'\\''`)}'`;
      const line = args === null || args === undefined || args === '' ? quoted : `${quoted} ${String(args)}`;
      const { saltenv: _saltenv, ...rest } = kwargs;
      const res = await this.execute(line, { ...rest, python_shell: rest.python_shell ?? true }, { mergeStderr: false });
      return isTrue(kwargs.hide_output) ? { ...res, stdout: '', stderr: '' } : { ...res };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  @Fn({ summary: "Run a script like cmd.script and return only its exit code", examples: ["salt '*' cmd.script_retcode salt://scripts/runme.sh"] })
  async script_retcode(source: unknown, args: unknown = null, kwargs: CmdKwargs = {}): Promise<unknown> {
    const res = await this.script(source, args, kwargs);
    return res.retcode;
  }

  @Fn({ summary: "Return the valid login shells listed in /etc/shells", examples: ["salt '*' cmd.shells"] })
  async shells(): Promise<string[]> {
    const text = await this.host.readFile('/etc/shells');
    if (text === null) return [];
    return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  }

  @Fn({ summary: "Return the path of the first executable found in a list of names, or None", examples: ["salt '*' cmd.which_bin '[pip2, pip, pip-python]'"] })
  async which_bin(cmds: unknown): Promise<string | null> {
    if (!Array.isArray(cmds) || !cmds.every((c) => typeof c === 'string')) throw new InvocationError('cmds must be a list of executable names');
    for (const c of cmds as string[]) {
      const found = await this.shellService.which(c);
      if (found) return found;
    }
    return null;
  }
}
