import { arg, IMaster, inject, State, StateModule, type MinionAnswer, type StateContext, type StateReturn } from 'brine/plugin';

/** Salt's fail_minions: a list, or ids separated by commas. */
function failMinions(value: unknown, ret: StateReturn): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(',').map((m) => m.trim());
  if (Array.isArray(value)) return value.map(String);
  ((ret.warnings ??= []) as string[]).push("'fail_minions' needs to be a list or a comma separated string. Ignored.");
  return [];
}

/** Positional arguments and keyword arguments as the wire carries them (a trailing `__kwarg__` map). */
function packed(args: unknown[], kwargs: Record<string, unknown>): unknown[] {
  return Object.keys(kwargs).length > 0 ? [...args, { ...kwargs, __kwarg__: true }] : args;
}

/** A target expression as given: a string, or a list (tgt_type list). */
function target(tgt: unknown): string | string[] {
  return Array.isArray(tgt) ? tgt.map(String) : String(tgt);
}

/**
 * The keyword arguments a state gave for the function it calls: not the state system's own
 * (`__id__`, `__sls__`, `__env__`, ...), which Salt's saltutil.runner drops too.
 */
function ownKwargs(kwargs: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(kwargs ?? {}).filter(([k]) => !k.startsWith('__')));
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Salt's state.check_result(ret, recurse=True): a non-empty dict of state returns none of which
 * failed (a nested return without `result` is checked the same way).
 */
function checkResult(running: unknown): boolean {
  if (!isDict(running) || Object.keys(running).length === 0) return false;
  for (const item of Object.values(running)) {
    if (!isDict(item)) continue;
    if (item.result === false) return false;
    if (!('result' in item) && !checkResult(item)) return false;
  }
  return true;
}

const TARGET = {
  tgt: arg.any({ description: 'The minions to run on: a target expression (or a list with tgt_type list)' }),
  tgt_type: arg.string({ default: 'glob' }),
  timeout: arg.number({ optional: true }),
  fail_minions: arg.any({ optional: true }),
};

/**
 * Salt's `salt` state module (salt/states/saltmod.py), which orchestrations run on the master
 * (`salt-run state.orchestrate`): jobs published to minions and judged by their returns.
 */
@StateModule('salt')
export class SaltStates {
  constructor(@inject(IMaster) private readonly master: IMaster) {}

  @State({
    summary: 'Execute a single module function on a remote minion via salt or salt-ssh',
    examples: ["run-uptime:\n  salt.function:\n    - name: cmd.run\n    - tgt: 'web*'\n    - arg:\n      - uptime"],
    args: { name: arg.string(), ...TARGET, arg: arg.any({ optional: true }), kwarg: arg.any({ optional: true }) },
    kwargs: true,
  })
  async function(
    a: { name: string; tgt: unknown; tgt_type: string; timeout?: number; fail_minions?: unknown; arg?: unknown; kwarg?: unknown },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const ret: StateReturn = { name: a.name, changes: {}, comment: '', result: true };
    let args: unknown[] = [];
    if (typeof a.arg === 'string') {
      ret.warnings = ["Please specify 'arg' as a list of arguments."];
      args = a.arg.split(/\s+/).filter(Boolean);
    } else if (Array.isArray(a.arg)) args = a.arg;
    const kwargs = isDict(a.kwarg) ? a.kwarg : {};
    if (ctx.test) {
      return { ...ret, comment: `Function ${a.name} would be executed on target ${String(a.tgt)}`, result: null };
    }
    let answers: MinionAnswer[];
    try {
      answers = await this.master.cmd({
        tgt: target(a.tgt),
        tgtType: a.tgt_type,
        fun: a.name,
        arg: packed(args, kwargs),
        timeout: a.timeout,
      });
    } catch (err) {
      return { ...ret, result: false, comment: (err as Error).message };
    }
    const allowedToFail = failMinions(a.fail_minions, ret);
    const changes: Record<string, unknown> = {};
    const fail = new Set<string>();
    for (const { id, return: value, retcode } of answers) {
      if (retcode) {
        ret.result = false;
        fail.add(id);
      }
      if (value === false && !allowedToFail.includes(id)) fail.add(id);
      changes[id] = value;
    }
    if (answers.length === 0) return { ...ret, result: false, comment: 'No minions responded' };
    ret.changes = { ret: changes };
    if (fail.size > 0) {
      ret.result = false;
      ret.comment = `Running function ${a.name} failed on minions: ${[...fail].join(', ')}`;
    } else ret.comment = 'Function ran successfully.';
    ret.comment += ` Function ${a.name} ran on ${Object.keys(changes).join(', ')}.`;
    return ret;
  }

  @State({
    summary: 'Execute a runner module on the master',
    description: "As Salt's: `arg` and `kwarg`, and any other keyword argument, go to the runner; its return is the state's changes.",
    examples: ['accepted:\n  salt.runner:\n    - name: manage.up'],
    args: { name: arg.string(), arg: arg.list({ optional: true }), kwarg: arg.any({ optional: true }) },
    kwargs: true,
  })
  async runner(
    a: { name: string; arg?: unknown[]; kwarg?: unknown; kwargs?: Record<string, unknown> },
    ctx: StateContext,
  ): Promise<StateReturn> {
    if (ctx.test) return { name: a.name, result: null, changes: {}, comment: `Runner function '${a.name}' would be executed.` };
    const kwargs = { ...ownKwargs(a.kwargs), ...(isDict(a.kwarg) ? a.kwarg : {}) };
    return this.onMaster('Runner', a.name, () => this.master.runner(a.name, a.arg ?? [], kwargs));
  }

  @State({
    summary: 'Execute a wheel module on the master',
    description: "As Salt's: the keyword arguments go to the wheel function (`match` for key.accept); its return is the state's changes.",
    examples: ["accept-web:\n  salt.wheel:\n    - name: key.accept\n    - match: 'web*'"],
    args: { name: arg.string() },
    kwargs: true,
  })
  async wheel(a: { name: string; kwargs?: Record<string, unknown> }, ctx: StateContext): Promise<StateReturn> {
    if (ctx.test) return { name: a.name, result: null, changes: {}, comment: `Wheel function '${a.name}' would be executed.` };
    return this.onMaster('Wheel', a.name, () => this.master.wheel(a.name, [], ownKwargs(a.kwargs)));
  }

  /**
   * A runner or wheel call as Salt's salt.runner/salt.wheel judge it: failed when it raised, or
   * when it answered a dict with an `Error` key; its return is the state's changes either way.
   */
  private async onMaster(kind: 'Runner' | 'Wheel', name: string, call: () => Promise<unknown>): Promise<StateReturn> {
    let value: unknown;
    let success = true;
    try {
      value = await call();
    } catch (err) {
      value = `Exception occurred in ${kind.toLowerCase()} ${name}: ${(err as Error).message}`;
      success = false;
    }
    if (isDict(value) && 'Error' in value) success = false;
    return { name, changes: { return: value }, result: success, comment: `${kind} function '${name}' ${success ? 'executed' : 'failed'}.` };
  }

  @State({
    summary: 'Invoke a state run on a given target',
    examples: ["webservers:\n  salt.state:\n    - tgt: 'web*'\n    - sls:\n      - apache\n      - django"],
    args: {
      name: arg.string(),
      ...TARGET,
      highstate: arg.boolean({ optional: true }),
      sls: arg.any({ optional: true }),
      top: arg.string({ optional: true }),
      saltenv: arg.string({ optional: true }),
      test: arg.boolean({ optional: true }),
      pillar: arg.any({ optional: true }),
      pillarenv: arg.string({ optional: true }),
      exclude: arg.any({ optional: true }),
      expect_minions: arg.boolean({ default: true }),
      allow_fail: arg.any({ default: 0 }),
      queue: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async state(
    a: {
      name: string;
      tgt: unknown;
      tgt_type: string;
      timeout?: number;
      fail_minions?: unknown;
      highstate?: boolean;
      sls?: unknown;
      top?: string;
      saltenv?: string;
      test?: boolean;
      pillar?: unknown;
      pillarenv?: string;
      exclude?: unknown;
      expect_minions: boolean;
      allow_fail: unknown;
      queue: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const ret: StateReturn = { name: a.name, changes: {}, comment: '', result: true };
    const allowFail = Number(a.allow_fail);
    if (!Number.isInteger(allowFail)) return { ...ret, result: false, comment: "Passed invalid value for 'allow_fail', must be an int" };
    let fun: string;
    const args: unknown[] = [];
    if (a.highstate) fun = 'state.highstate';
    else if (a.top) {
      fun = 'state.top';
      args.push(a.top);
    } else if (a.sls) {
      fun = 'state.sls';
      args.push(Array.isArray(a.sls) ? a.sls.join(',') : String(a.sls));
    } else return { ...ret, result: false, comment: 'No highstate or sls specified, no execution made' };
    const kwargs: Record<string, unknown> = {};
    const test = a.test ?? (ctx.test ? true : undefined);
    if (test !== undefined) kwargs.test = test;
    if (a.pillar) kwargs.pillar = a.pillar;
    if (a.pillarenv !== undefined) kwargs.pillarenv = a.pillarenv;
    if (a.saltenv !== undefined) kwargs.saltenv = a.saltenv;
    if (a.exclude !== undefined) kwargs.exclude = a.exclude;
    kwargs.queue = a.queue;
    const answers = await this.master.cmd({ tgt: target(a.tgt), tgtType: a.tgt_type, fun, arg: packed(args, kwargs), timeout: a.timeout });
    const allowedToFail = failMinions(a.fail_minions, ret);
    if (answers.length === 0 && a.expect_minions) return { ...ret, result: false, comment: 'No minions returned' };
    const changes: Record<string, unknown> = {};
    const fail: string[] = [];
    const noChange: string[] = [];
    for (const { id, return: value } of answers) {
      if (!checkResult(value)) {
        if (!allowedToFail.includes(id)) fail.push(id);
        changes[id] = value;
        continue;
      }
      const changed = Object.values(value as Record<string, unknown>).some(
        (s) => isDict(s) && isDict(s.changes) && Object.keys(s.changes).length > 0,
      );
      if (changed) changes[id] = value;
      else noChange.push(id);
    }
    if (Object.keys(changes).length > 0) ret.changes = { out: 'highstate', ret: changes };
    if (fail.length > allowFail) {
      ret.result = false;
      ret.comment = `Run failed on minions: ${fail.join(', ')}`;
    } else {
      ret.comment = 'States ran successfully.';
      if (Object.keys(changes).length > 0) ret.comment += ` Updating ${Object.keys(changes).join(', ')}.`;
      if (noChange.length > 0) ret.comment += ` No changes made to ${noChange.join(', ')}.`;
    }
    if (test && Object.keys(ret.changes).length > 0 && ret.result === true) ret.result = null;
    return ret;
  }
}
