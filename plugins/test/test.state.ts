import type { StateContext, StateReturn } from 'brine/plugin';
import { CommandExecutionError } from 'brine/plugin';

const changeData = (): Record<string, unknown> => ({ testing: { old: 'Unchanged', new: 'Something pretended to change' } });

type Args = Record<string, unknown> & { name: string };

/** Salt 3007's `test` state module: states that succeed, fail and change on demand. */
export class TestStates {
  static readonly stateModule = 'test';
  static readonly functions = {
    nop: ['name'],
    succeed_without_changes: ['name'],
    succeed_with_changes: ['name'],
    fail_without_changes: ['name'],
    fail_with_changes: ['name'],
    succeed_with_comment: ['name', 'comment'],
    fail_with_comment: ['name', 'comment'],
    configurable_test_state: ['name'],
    show_notification: ['name'],
    check_pillar: ['name'],
    mod_watch: ['name'],
  };

  async nop(args: Args): Promise<StateReturn> {
    return { name: args.name, changes: {}, result: true, comment: 'Success!' };
  }

  async succeed_without_changes(args: Args): Promise<StateReturn> {
    return { name: args.name, changes: {}, result: true, comment: String(args.comment ?? 'Success!') };
  }

  async fail_without_changes(args: Args, ctx: StateContext): Promise<StateReturn> {
    const ret: StateReturn = { name: args.name, changes: {}, result: false, comment: String(args.comment ?? 'Failure!') };
    if (ctx.test) ret.comment = "If we weren't testing, this would be a failure!";
    return ret;
  }

  async succeed_with_changes(args: Args, ctx: StateContext): Promise<StateReturn> {
    const ret: StateReturn = { name: args.name, changes: changeData(), result: true, comment: String(args.comment ?? 'Success!') };
    if (ctx.test) {
      ret.result = null;
      ret.comment = "If we weren't testing, this would be successful with changes";
    }
    return ret;
  }

  async fail_with_changes(args: Args, ctx: StateContext): Promise<StateReturn> {
    const ret: StateReturn = { name: args.name, changes: changeData(), result: false, comment: String(args.comment ?? 'Failure!') };
    if (ctx.test) {
      ret.result = null;
      ret.comment = "If we weren't testing, this would be failed with changes";
    }
    return ret;
  }

  async succeed_with_comment(args: Args): Promise<StateReturn> {
    return { name: args.name, changes: {}, result: true, comment: String(args.comment) };
  }

  async fail_with_comment(args: Args): Promise<StateReturn> {
    return { name: args.name, changes: {}, result: false, comment: String(args.comment) };
  }

  async configurable_test_state(args: Args, ctx: StateContext): Promise<StateReturn> {
    const changes = args.changes ?? true;
    const result = args.result ?? true;
    const comment = (args.comment as string) ?? '';
    const ret: StateReturn = { name: args.name, changes: {}, result: false, comment };
    const w = args.warnings;
    if (typeof w === 'string') ret.warnings = [w];
    else if (Array.isArray(w)) ret.warnings = w;
    else if (w !== undefined && w !== null) throw new CommandExecutionError('warnings must be a string or a list');
    if (changes === 'Random') ret.changes = Math.random() < 0.5 ? changeData() : {};
    else if (changes === true) ret.changes = changeData();
    else if (changes === false) ret.changes = {};
    else throw new CommandExecutionError('You have specified the state option "Changes" with invalid arguments. It must be either  True, False, or "Random"');
    if (result === 'Random') ret.result = Math.random() < 0.5;
    else if (result === true || result === false) ret.result = result;
    else throw new CommandExecutionError('You have specified the state option "Result" with invalid arguments. It must be either True, False, or "Random"');
    if (ctx.test) {
      ret.result = changes === false ? true : null;
      ret.comment = comment ? comment : 'This is a test';
      if (args.allow_test_mode_failure && result === false) ret.result = false;
    }
    return ret;
  }

  async show_notification(args: Args): Promise<StateReturn> {
    if (!args.text) throw new CommandExecutionError('Missing required argument text.');
    return { name: args.name, changes: {}, result: true, comment: String(args.text) };
  }

  async check_pillar(args: Args): Promise<StateReturn> {
    return { name: args.name, changes: {}, result: true, comment: '' };
  }

  async mod_watch(args: Args, ctx: StateContext): Promise<StateReturn> {
    const hasChanges: string[] = [];
    const reqs = (ctx.low?.__reqs__ as Record<string, Record<string, string>[]> | undefined)?.watch ?? [];
    for (const req of reqs) {
      const tag = `${req.state}_|-${req.__id__}_|-${req.name}_|-${req.fun}`;
      const r = ctx.running?.[tag];
      if (r && Object.keys(r.changes ?? {}).length) hasChanges.push(`${req.state}: ${req.__id__}`);
    }
    return {
      name: args.name,
      result: (args.result as boolean) ?? true,
      comment: String(args.comment ?? 'Watch statement fired.'),
      changes: (args.changes as Record<string, unknown>) ?? { 'Requisites with changes': hasChanges },
    };
  }
}
