import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  arg,
  CommandExecutionError,
  inject,
  IShell,
  ShlexError,
  shlexSplit,
  State,
  StateModule,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';

/** The arguments every cmd state shares (Salt's names); others go to `kwargs`. */
const RUN_ARGS = {
  name: arg.string(),
  cwd: arg.string({ optional: true }),
  runas: arg.string({ optional: true }),
  shell: arg.string({ optional: true }),
  env: arg.any({ optional: true }),
  umask: arg.any({ optional: true }),
  timeout: arg.number({ optional: true, min: 0 }),
  success_retcodes: arg.any({ optional: true }),
  stateful: arg.any({ default: false }),
};
const SCRIPT_ARGS = {
  ...RUN_ARGS,
  source: arg.string({ optional: true }),
  template: arg.string({ optional: true }),
  args: arg.string({ optional: true }),
  defaults: arg.dict({ optional: true }),
  context: arg.dict({ optional: true }),
};

interface RunArgs {
  name: string;
  cwd?: string;
  runas?: string;
  shell?: string;
  env?: unknown;
  umask?: unknown;
  timeout?: number;
  success_retcodes?: unknown;
  stateful: unknown;
  kwargs: Record<string, unknown>;
}
interface ScriptArgs extends RunArgs {
  source?: string;
  template?: string;
  args?: string;
  defaults?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

/** A state-runner service of the context; outside a state run it is a clear error. */
function needed<F>(f: F | undefined, what: string): F {
  if (!f) throw new CommandExecutionError(`cmd states need the state runner's ${what}: run them through state.apply / state.sls`);
  return f;
}

/** Salt's `cmd.run_all` fields as a state's changes: pid, retcode, stdout, stderr (stripped). */
interface RunAll {
  pid: number;
  retcode: number;
  stdout: string;
  stderr: string;
}

function envOf(env: unknown): Record<string, string> | undefined {
  if (env === undefined || env === null) return undefined;
  const out: Record<string, string> = {};
  const items = Array.isArray(env) ? env : [env];
  for (const item of items) {
    if (item && typeof item === 'object') for (const [k, v] of Object.entries(item)) out[k] = String(v);
  }
  return out;
}

/**
 * salt/states/cmd.py's own `_is_true` for a stateful command's `changed=`: unlike Salt's general
 * `is_true`, `yes` is true, and a word it does not know is an error.
 */
function changedFlag(v: unknown): boolean {
  const text = v === true ? 'true' : v === false ? 'false' : String(v).toLowerCase();
  if (v && ['true', 'yes', '1'].includes(text)) return true;
  if (['false', 'no', '0', ''].includes(text)) return false;
  throw new CommandExecutionError(`Failed parsing boolean value: ${String(v)}`);
}

/** Salt's _reinterpreted_state: a stateful command's last line (or JSON) becomes the state. */
function reinterpreted(state: StateReturn): StateReturn {
  const ret = state.changes as Partial<RunAll> & Record<string, unknown>;
  state.changes = {};
  state.comment = '';
  let out = ret.stdout;
  if (!out) {
    if (ret.stderr) state.comment = String(ret.stderr);
    return state;
  }
  let isJson = false;
  let data: Record<string, unknown> = {};
  let idx = -1;
  try {
    const parsed = JSON.parse(out);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ...state, result: false, comment: 'script JSON output must be a JSON object (e.g., {})!' };
    }
    data = parsed;
    isJson = true;
  } catch {
    idx = out.replace(/\s+$/, '').lastIndexOf('\n');
    if (idx !== -1) out = out.slice(idx + 1);
    let items: string[] | null;
    try {
      items = shlexSplit(out);
    } catch (err) {
      // Salt catches shlex's ValueError (an unclosed quote) with the same failure as a bad pair.
      if (!(err instanceof ShlexError)) throw err;
      items = null;
    }
    for (const item of items ?? ['']) {
      const parts = item.split('=');
      if (parts.length !== 2) {
        const failed: StateReturn = {
          ...state,
          result: false,
          comment: 'Failed parsing script output! Stdout must be JSON or a line of name=value pairs.',
        };
        failed.changes = { ...ret };
        return failed;
      }
      data[parts[0]] = parts[1];
    }
  }
  const changed = changedFlag(data.changed ?? 'no');
  if ('comment' in data) {
    state.comment = String(data.comment);
    delete data.comment;
  }
  if (changed) {
    for (const [k, v] of Object.entries(ret)) if (!(k in data)) data[k] = v;
    data.stdout = isJson ? '' : String(data.stdout ?? '').slice(0, idx === -1 ? undefined : idx);
    state.changes = data;
  }
  return state;
}

/** Salt 3007's `cmd` state module: run, wait, script, and mod_watch for watch requisites. */
@StateModule('cmd')
export class CmdStates {
  constructor(@inject(IShell) private readonly shell: IShell) {}

  private async runAll(cmd: string, args: RunArgs): Promise<RunAll> {
    const res = await this.shell.run(cmd, {
      pythonShell: true,
      shell: args.shell ?? '/bin/sh',
      cwd: args.cwd,
      env: envOf(args.env),
      runas: args.runas,
      umask: args.umask === undefined || args.umask === null ? undefined : (args.umask as string | number),
      timeout: args.timeout,
    });
    // Salt's _run on a timeout: this text as stdout, retcode 1, its keys in this order.
    if (res.timedOut) return { stdout: `${cmd} : Timed out after ${args.timeout} seconds`, stderr: '', retcode: 1, pid: res.pid };
    let retcode = res.retcode;
    const ok = args.success_retcodes;
    if (ok !== undefined && ok !== null) {
      const list = (Array.isArray(ok) ? ok : [ok]).map(Number);
      if (list.includes(retcode)) retcode = 0;
    }
    return { pid: res.pid, retcode, stdout: res.stdout.replace(/\s+$/, ''), stderr: res.stderr.replace(/\s+$/, '') };
  }

  @State({
    summary: 'Run a command if certain circumstances are met',
    examples: ['salt-call state.single cmd.run name="touch /tmp/x"'],
    args: RUN_ARGS,
    kwargs: true,
  })
  async run(args: RunArgs, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const stateful = args.stateful === true || Array.isArray(args.stateful);
    let ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (args.env !== undefined && args.env !== null && typeof args.env !== 'object') {
      ret.comment = "Invalidly-formatted 'env' parameter. See documentation.";
      return ret;
    }
    if (ctx.test) {
      ret.result = null;
      ret.comment = `Command "${name}" would have been executed`;
      ret.changes = { cmd: name };
      return stateful ? reinterpreted(ret) : ret;
    }
    const cwd = args.cwd;
    if (cwd && !(existsSync(cwd) && statSync(cwd).isDirectory())) {
      ret.comment = `Desired working directory "${cwd}" is not available`;
      return ret;
    }
    let all: RunAll;
    try {
      all = await this.runAll(name, args);
    } catch (err) {
      ret.comment = (err as Error).message;
      return ret;
    }
    ret.changes = { ...all };
    ret.result = all.retcode === 0;
    ret.comment = `Command "${name}" run`;
    if (stateful) ret = reinterpreted(ret);
    return ret;
  }

  @State({ summary: 'Run the given command only if the watch statement calls it', args: { name: arg.string() }, kwargs: true })
  async wait({ name }: { name: string }): Promise<StateReturn> {
    return { name, changes: {}, result: true, comment: '' };
  }

  @State({
    summary: 'Download a script from a remote source and execute it only if a watch statement calls it',
    args: { name: arg.string() },
    kwargs: true,
  })
  async wait_script({ name }: { name: string }): Promise<StateReturn> {
    return { name, changes: {}, result: true, comment: '' };
  }

  @State({
    summary: 'Download a script and execute it with specified arguments',
    examples: ['salt-call state.single cmd.script salt://scripts/runme.sh'],
    args: SCRIPT_ARGS,
    kwargs: true,
  })
  async script(args: ScriptArgs, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const stateful = args.stateful === true || Array.isArray(args.stateful);
    let ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (ctx.test) {
      ret.result = null;
      ret.comment = `Command '${name}' would have been executed`;
      return stateful ? reinterpreted(ret) : ret;
    }
    const source = args.source ?? name;
    const cached = await needed(ctx.cacheFile, 'cacheFile')(source);
    if (!cached) {
      ret.comment = `Unable to cache script ${source} from saltenv '${ctx.saltenv}'`;
      return ret;
    }
    if (args.template && args.template !== 'jinja') {
      ret.comment = `The template renderer '${args.template}' is not available (brine renders jinja)`;
      return ret;
    }
    const dir = mkdtempSync(join(tmpdir(), 'brine-script-'));
    const path = join(dir, basename(source));
    try {
      if (args.template) {
        const rel = source.startsWith('salt://') ? source.slice('salt://'.length).split('?')[0] : source;
        writeFileSync(
          path,
          await needed(ctx.renderTemplate, 'renderTemplate')(cached, rel, { ...(args.defaults ?? {}), ...(args.context ?? {}) }),
        );
      } else copyFileSync(cached, path);
      chmodSync(path, 0o700);
      const cmd = args.args !== undefined ? `${path} ${args.args}` : path;
      const all = await this.runAll(cmd, args);
      ret.changes = { ...all };
      ret.result = all.retcode === 0;
      ret.comment = `Command '${name}' run`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    if (stateful) ret = reinterpreted(ret);
    return ret;
  }

  @State({
    modWatch: true,
    summary: 'Execute a cmd function based on a watch call',
    args: { ...SCRIPT_ARGS, sfun: arg.string({ optional: true }) },
    kwargs: true,
  })
  async mod_watch(args: ScriptArgs & { sfun?: string }, ctx: StateContext): Promise<StateReturn> {
    const sfun = args.sfun ?? '';
    if (sfun === 'wait' || sfun === 'run' || sfun === 'watch') return this.run(args, ctx);
    if (sfun === 'wait_script' || sfun === 'script') return this.script(args, ctx);
    return {
      name: args.name,
      changes: {},
      result: false,
      comment: `cmd.${sfun} does not work with the watch requisite, please use cmd.wait or cmd.wait_script`,
    };
  }
}
