import {
  arg,
  CommandExecutionError,
  inject,
  InvocationError,
  ISalt,
  State,
  StateModule,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';

const changeData = (): Record<string, unknown> => ({ testing: { old: 'Unchanged', new: 'Something pretended to change' } });

/** Salt's `name` plus an optional `comment` (Salt reads it from **kwargs). */
const NAMED = { name: arg.string(), comment: arg.string({ optional: true }) };
type Named = { name: string; comment?: string };
const COMMENTED = { name: arg.string(), comment: arg.string() };

/**
 * check_pillar's checks in Salt's order, each with the type Salt names in its comment and the
 * test of Python's isinstance (an integer check accepts booleans, as isinstance(True, int)).
 */
const PILLAR_CHECKS: { arg: string; type: string; is: (v: unknown) => boolean }[] = [
  { arg: 'present', type: 'None', is: () => true },
  { arg: 'boolean', type: "<class 'bool'>", is: (v) => typeof v === 'boolean' },
  { arg: 'integer', type: "<class 'int'>", is: (v) => typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v)) },
  { arg: 'string', type: "(<class 'str'>,)", is: (v) => typeof v === 'string' },
  { arg: 'listing', type: "<class 'list'>", is: (v) => Array.isArray(v) },
  { arg: 'dictionary', type: "<class 'dict'>", is: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) },
];
const KEYS = arg.any({ optional: true, description: 'A pillar key or a list of them (nested keys with :)' });

/** Salt's _if_str_then_list. */
function keyList(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map(String);
  throw new InvocationError('check_pillar takes a key or a list of keys for each check');
}

/** Salt 3007's `test` state module: states that succeed, fail and change on demand. */
@StateModule('test')
export class TestStates {
  constructor(@inject(ISalt) private readonly salt: ISalt) {}

  @State({
    summary: 'A no-op state that does nothing',
    examples: ['salt-call state.single test.nop name=x'],
    args: { name: arg.string() },
    kwargs: true,
  })
  nop({ name }: { name: string }): StateReturn {
    return { name, changes: {}, result: true, comment: 'Success!' };
  }

  @State({ summary: 'Returns successful', args: NAMED, kwargs: true })
  succeed_without_changes({ name, comment }: Named): StateReturn {
    return { name, changes: {}, result: true, comment: comment ?? 'Success!' };
  }

  @State({ summary: 'Returns failure', args: NAMED, kwargs: true })
  fail_without_changes({ name, comment }: Named, ctx: StateContext): StateReturn {
    const ret: StateReturn = { name, changes: {}, result: false, comment: comment ?? 'Failure!' };
    if (ctx.test) ret.comment = "If we weren't testing, this would be a failure!";
    return ret;
  }

  @State({ summary: 'Returns successful and changes is not empty', args: NAMED, kwargs: true })
  succeed_with_changes({ name, comment }: Named, ctx: StateContext): StateReturn {
    const ret: StateReturn = { name, changes: changeData(), result: true, comment: comment ?? 'Success!' };
    if (ctx.test) {
      ret.result = null;
      ret.comment = "If we weren't testing, this would be successful with changes";
    }
    return ret;
  }

  @State({ summary: 'Returns failure and changes is not empty', args: NAMED, kwargs: true })
  fail_with_changes({ name, comment }: Named, ctx: StateContext): StateReturn {
    const ret: StateReturn = { name, changes: changeData(), result: false, comment: comment ?? 'Failure!' };
    if (ctx.test) {
      ret.result = null;
      ret.comment = "If we weren't testing, this would be failed with changes";
    }
    return ret;
  }

  @State({ summary: 'Returns successful with the given comment', args: COMMENTED, kwargs: true })
  succeed_with_comment({ name, comment }: { name: string; comment: string }): StateReturn {
    return { name, changes: {}, result: true, comment };
  }

  @State({ summary: 'Returns failure with the given comment', args: COMMENTED, kwargs: true })
  fail_with_comment({ name, comment }: { name: string; comment: string }): StateReturn {
    return { name, changes: {}, result: false, comment };
  }

  @State({
    summary: 'A configurable test state which allows for more control over the return data',
    description: "changes and result are True, False or 'Random'; in test mode result is None unless changes is False.",
    args: {
      name: arg.string(),
      changes: arg.any({ default: true }),
      result: arg.any({ default: true }),
      comment: arg.string({ default: '' }),
      warnings: arg.any({ optional: true }),
      allow_test_mode_failure: arg.boolean({ default: false }),
    },
  })
  configurable_test_state(
    a: { name: string; changes: unknown; result: unknown; comment: string; warnings?: unknown; allow_test_mode_failure: boolean },
    ctx: StateContext,
  ): StateReturn {
    const { name, changes, result, comment, warnings } = a;
    const ret: StateReturn = { name, changes: {}, result: false, comment };
    if (typeof warnings === 'string') ret.warnings = [warnings];
    else if (Array.isArray(warnings)) ret.warnings = warnings;
    else if (warnings !== undefined && warnings !== null) throw new CommandExecutionError('warnings must be a string or a list');
    if (changes === 'Random') ret.changes = Math.random() < 0.5 ? changeData() : {};
    else if (changes === true) ret.changes = changeData();
    else if (changes === false) ret.changes = {};
    else
      throw new CommandExecutionError(
        'You have specified the state option "Changes" with invalid arguments. It must be either  True, False, or "Random"',
      );
    if (result === 'Random') ret.result = Math.random() < 0.5;
    else if (result === true || result === false) ret.result = result;
    else
      throw new CommandExecutionError(
        'You have specified the state option "Result" with invalid arguments. It must be either True, False, or "Random"',
      );
    if (ctx.test) {
      ret.result = changes === false ? true : null;
      ret.comment = comment ? comment : 'This is a test';
      if (a.allow_test_mode_failure && result === false) ret.result = false;
    }
    return ret;
  }

  @State({ summary: 'Simple notification using text argument', args: { name: arg.string(), text: arg.string({ optional: true }) } })
  show_notification({ name, text }: { name: string; text?: string }): StateReturn {
    if (!text) throw new CommandExecutionError('Missing required argument text.');
    return { name, changes: {}, result: true, comment: text };
  }

  @State({
    summary: 'Checks the presence and, optionally, the type of given keys in Pillar',
    examples: ['salt-call state.single test.check_pillar x present=[foo] integer=[bar]'],
    args: {
      name: arg.string(),
      present: KEYS,
      boolean: KEYS,
      integer: KEYS,
      string: KEYS,
      listing: KEYS,
      dictionary: KEYS,
      verbose: arg.boolean({ default: false }),
    },
  })
  async check_pillar(a: { name: string; verbose: boolean } & Record<string, unknown>): Promise<StateReturn> {
    const checks = PILLAR_CHECKS.map((c) => ({ ...c, keys: keyList(a[c.arg]) }));
    if (checks.every((c) => c.keys.length === 0)) throw new InvocationError('Missing required argument text.');
    const ret: StateReturn = { name: a.name, changes: {}, result: true, comment: '' };
    // By key, in first-seen order (a Python dict): the type it failed, null when missing.
    const failed = new Map<string, string | null>();
    const fine = new Map<string, string>();
    for (const check of checks) {
      for (const key of check.keys) {
        const value = await this.salt.call('pillar.get', [key, null]);
        if (value === null || value === undefined) {
          failed.set(key, null);
          ret.result = false;
        } else if (!check.is(value)) {
          failed.set(key, check.type);
          ret.result = false;
        } else if (a.verbose) fine.set(key, check.type);
      }
    }
    let comment = '';
    for (const [key, type] of failed) comment += `Pillar key "${key}" ${type === null ? 'is missing.' : `is not ${type}.`}\n`;
    if (a.verbose && fine.size > 0) {
      comment += 'Those keys passed the check:\n';
      for (const [key, type] of fine) comment += `- ${key} (${type})\n`;
    }
    ret.comment = comment;
    return ret;
  }

  @State({
    modWatch: true,
    summary: 'Call this function via a watch statement',
    args: {
      name: arg.string(),
      sfun: arg.string({ optional: true }),
      result: arg.any({ optional: true }),
      comment: arg.any({ optional: true }),
      changes: arg.any({ optional: true }),
    },
    kwargs: true,
  })
  mod_watch(a: { name: string; sfun?: string; result?: unknown; comment?: unknown; changes?: unknown }, ctx: StateContext): StateReturn {
    const hasChanges: string[] = [];
    const reqs = (ctx.low?.__reqs__ as Record<string, Record<string, string>[]> | undefined)?.watch ?? [];
    for (const req of reqs) {
      const tag = `${req.state}_|-${req.__id__}_|-${req.name}_|-${req.fun}`;
      const r = ctx.running?.[tag];
      if (r && Object.keys(r.changes ?? {}).length) hasChanges.push(`${req.state}: ${req.__id__}`);
    }
    return {
      name: a.name,
      result: (a.result as boolean) ?? true,
      comment: String(a.comment ?? 'Watch statement fired.'),
      changes: (a.changes as Record<string, unknown>) ?? { 'Requisites with changes': hasChanges },
    };
  }
}
