import { arg, IGrains, IModules, inject, isTrue, ISalt, State, StateModule, type StateContext, type StateReturn } from 'brine/plugin';
import { serviceBackend } from './backend';

/** Salt's SYSTEMD_ONLY: passed on only where systemd runs, and only to functions that take them. */
const SYSTEMD_ONLY = ['no_block', 'unmask', 'unmask_runtime'] as const;

type Ret = StateReturn & { comment: string; warnings?: string[] };
type Partial = Omit<Ret, 'name' | 'changes' | 'result' | 'comment'> & {
  changes?: Record<string, unknown>;
  result?: boolean | null;
  comment?: string;
};
type Kwargs = Record<string, unknown>;

interface RunArgs {
  name: string;
  enable?: unknown;
  sig?: string;
  init_delay?: number;
  kwargs: Kwargs;
}

interface WatchArgs {
  name: string;
  sfun?: string;
  sig?: string;
  reload: boolean;
  full_restart: boolean;
  init_delay?: number;
  force: boolean;
  kwargs: Kwargs;
}

const RUN_ARGS = {
  name: arg.string({ nonEmpty: true }),
  enable: arg.any({ optional: true }),
  sig: arg.string({ optional: true }),
  init_delay: arg.number({ optional: true, min: 0 }),
};

/** Salt's CommandExecutionError as the state sees it (by code: a plugin may carry its own copy of the class). */
function commandError(err: unknown): string | null {
  return (err as { code?: unknown })?.code === 'COMMAND_EXECUTION' ? (err as Error).message : null;
}

/** Salt's `time.sleep(init_delay)`: a service's own settling time, asked for by the SLS. */
const delay = (seconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function addWarnings(ret: Ret, warnings: string[]): void {
  const current = (ret.warnings ??= []);
  for (const w of warnings) if (!current.includes(w)) current.push(w);
}

/**
 * Salt 3007's `service` states (salt/states/service.py) over whichever `service` execution module
 * the minion loaded (systemd, OpenRC, sysvinit): running, dead, enabled, disabled, masked,
 * unmasked and the mod_watch that restarts (or reloads) a service whose watched states changed.
 * Comments, changes and test mode are Salt's, word for word.
 */
@StateModule('service', {
  doc: 'Starting or restarting of services and daemons',
  // Salt loads these states where a `service` module loaded: the same grains choose it (backend.ts).
  available: (grains) =>
    serviceBackend(grains) !== null ||
    `No service execution module loaded: check support for service management on ${String(grains.osfinger ?? grains.os)} `,
})
export class ServiceStates {
  constructor(
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IModules) private readonly modules: IModules,
    @inject(IGrains) private readonly grains: IGrains,
  ) {}

  private call<T>(fun: string, args: unknown[], kwargs?: Kwargs): Promise<T> {
    return this.salt.call(`service.${fun}`, args, kwargs) as Promise<T>;
  }

  private has(fun: string): boolean {
    return this.salt.has(`service.${fun}`);
  }

  /** The kwargs a service function declares (the state's other keywords would be refused). */
  private accepted(fun: string, kwargs: Kwargs): Kwargs {
    const spec = this.modules.argspec(`service.${fun}`);
    const names = new Set(spec?.args ?? []);
    return Object.fromEntries(Object.entries(kwargs).filter(([k]) => names.has(k) && k !== 'name'));
  }

  /** Salt's _get_systemd_only: the systemd-only keywords `fun` takes, or warnings where systemd does not run. */
  private systemdOnly(fun: string, kwargs: Kwargs): [Kwargs, string[]] {
    const ret: Kwargs = {};
    const warnings: string[] = [];
    const valid = new Set(this.modules.argspec(`service.${fun}`)?.args ?? []);
    const booted = this.grains.get('init') === 'systemd';
    for (const key of SYSTEMD_ONLY) {
      if (!(key in kwargs) || !valid.has(key)) continue;
      if (booted) ret[key] = kwargs[key];
      else warnings.push(`The '${key}' argument is not supported by this platform`);
    }
    return [ret, warnings];
  }

  /** service.status(name, sig) with Salt's positional sig left out when there is none. */
  private status(name: string, sig: string | undefined, kwargs: Kwargs): Promise<boolean> {
    return this.call<boolean>('status', [name], { ...(sig !== undefined ? { sig } : {}), ...kwargs });
  }

  private async offline(): Promise<boolean> {
    return this.has('offline') && Boolean(await this.call('offline', []));
  }

  /** Salt's _available: false (with the state's failure filled in) when the backend does not know the service. */
  private async available(name: string, ret: Partial): Promise<boolean> {
    let avail = false;
    if (this.has('available')) avail = Boolean(await this.call('available', [name]));
    else if (this.has('get_all')) avail = ((await this.call<string[]>('get_all', [])) ?? []).includes(name);
    if (!avail) {
      ret.result = false;
      ret.comment = `The named service ${name} is not available`;
    }
    return avail;
  }

  /**
   * Salt's _enable (on) and _disable (off): set the boot state and say so. `started` is true
   * (running), null (as wanted) or false (dead); `result` is the result when all goes well.
   */
  private async setBoot(
    on: boolean,
    name: string,
    started: boolean | null,
    test: boolean,
    kwargs: Kwargs,
    result = true,
  ): Promise<Partial> {
    const [verb, check] = on ? (['enable', 'enabled'] as const) : (['disable', 'disabled'] as const);
    const ret: Partial = {};
    try {
      // A service that is not there cannot start at boot: disabling it is done.
      if (!(await this.available(name, ret))) return on ? ret : { ...ret, result: true };
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { result: false, comment: message };
    }
    ret.result = result;
    const say = (running: string, asWanted: string, dead: string): string =>
      started === true ? running : started === null ? asWanted : dead;
    if (!this.has(verb) || !this.has(check)) {
      const Verb = on ? 'Enable' : 'Disable';
      ret.comment = say(
        `${Verb} is not available on this minion, service ${name} started`,
        `${Verb} is not available on this minion, service ${name} is in the desired state`,
        `${Verb} is not available on this minion, service ${name} is dead`,
      );
      return ret;
    }
    // Salt passes the state's keywords to service.enabled, not to service.disabled.
    const isSet = async (): Promise<boolean> => Boolean(await this.call(check, [name], on ? this.accepted(check, kwargs) : {}));
    const before = await isSet();
    if (before) {
      if (started === null) ret.changes = {};
      ret.comment = say(
        `Service ${name} is already ${check}, and is running`,
        `Service ${name} is already ${check}, and is in the desired state`,
        `Service ${name} is already ${check}, and is dead`,
      );
      return ret;
    }
    if (test) return { ...ret, result: null, comment: `Service ${name} set to be ${check}` };
    let error: string | false = false;
    try {
      if (await this.call(verb, [name], this.accepted(verb, kwargs))) {
        ret.changes = {};
        if (before !== (await isSet())) ret.changes[name] = true;
        ret.comment = say(
          `Service ${name} has been ${check}, and is running`,
          `Service ${name} has been ${check}, and is in the desired state`,
          `Service ${name} has been ${check}, and is dead`,
        );
        return ret;
      }
    } catch (err) {
      // Salt's _disable lets the error through (the state fails with it); _enable reports it.
      const message = on ? commandError(err) : null;
      if (message === null) throw err;
      error = message;
    }
    ret.result = false;
    const target = on ? 'start at boot' : 'not start at boot';
    ret.comment = say(
      on
        ? `Failed when setting service ${name} to start at boot, but the service is running`
        : `Failed when setting service ${name} to not start at boot, and is running`,
      `Failed when setting service ${name} to ${target}, but the service was already running`,
      `Failed when setting service ${name} to ${target}, and the service is dead`,
    );
    if (error) ret.comment += `. Additional information follows:\n\n${error}`;
    return ret;
  }

  /** `enable: True/False` after running/dead: enable or disable at boot, as Salt does. */
  private toggle(
    enable: unknown,
    name: string,
    started: boolean | null,
    test: boolean,
    kwargs: Kwargs,
    result = true,
  ): Promise<Partial> | null {
    return enable === true || enable === false ? this.setBoot(enable, name, started, test, kwargs, result) : null;
  }

  /** Salt's `enable` argument: a string is read with is_true. */
  private static enableArg(enable: unknown): unknown {
    return typeof enable === 'string' ? isTrue(enable) : enable;
  }

  @State({
    summary: 'Ensure that the service is running',
    description:
      'enable: True/False also enables or disables it at boot; sig: the text to find its process with ps; ' +
      'init_delay: seconds to wait after starting; unmask/unmask_runtime, no_block: systemd only.',
    examples: ["salt '*' state.single service.running nginx enable=True"],
    args: RUN_ARGS,
    kwargs: true,
  })
  async running(args: RunArgs, ctx: StateContext): Promise<StateReturn> {
    const { name, sig, init_delay: initDelay } = args;
    const kwargs = args.kwargs ?? {};
    const enable = ServiceStates.enableArg(args.enable);
    const ret: Ret = { name, changes: {}, result: true, comment: '' };
    if ('enabled' in kwargs) return enabledUsedError(ret);
    if (await this.offline()) return { ...ret, result: true, comment: 'Running in OFFLINE mode. Nothing to do' };
    try {
      if (!(await this.available(name, ret))) {
        if (ctx.test) {
          ret.result = null;
          ret.comment = `Service ${name} not present; if created in this state run, it would have been started`;
        }
        return ret;
      }
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { ...ret, result: false, comment: message };
    }
    const [statusKwargs, statusWarnings] = this.systemdOnly('status', kwargs);
    if (statusWarnings.length) addWarnings(ret, statusWarnings);
    const beforeStatus = await this.status(name, sig, statusKwargs);
    const beforeEnabled = this.has('enabled') ? Boolean(await this.call('enabled', [name])) : true;
    let unmaskComment = '';
    if (kwargs.unmask)
      unmaskComment = String((await this.unmasked({ name, runtime: isTrue(kwargs.unmask_runtime ?? false) }, ctx)).comment);

    if (beforeStatus) {
      ret.comment = [`The service ${name} is already running`, unmaskComment].filter(Boolean).join('\n');
      if (enable === true && !beforeEnabled) Object.assign(ret, await this.setBoot(true, name, null, ctx.test, kwargs));
      else if (enable === false && beforeEnabled) Object.assign(ret, await this.setBoot(false, name, null, ctx.test, kwargs));
      return ret;
    }
    if (ctx.test) {
      ret.result = null;
      ret.comment = [`Service ${name} is set to start`, unmaskComment].filter(Boolean).join('\n');
      return ret;
    }
    const [startKwargs, startWarnings] = this.systemdOnly('start', kwargs);
    if (startWarnings.length) addWarnings(ret, startWarnings);
    let started: boolean;
    try {
      started = Boolean(await this.call('start', [name], startKwargs));
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { ...ret, result: false, comment: message };
    }
    if (!started) {
      ret.result = false;
      ret.comment = `Service ${name} failed to start`;
      const toggled = this.toggle(enable, name, false, ctx.test, kwargs, false);
      if (toggled) Object.assign(ret, await toggled);
      return ret;
    }
    if (initDelay) await delay(initDelay);
    const afterStatus = await this.status(name, sig, statusKwargs);
    const afterEnabled = this.has('enabled') ? Boolean(await this.call('enabled', [name])) : true;
    if ((beforeEnabled !== afterEnabled || beforeStatus !== afterStatus) && Object.keys(ret.changes).length === 0)
      ret.changes[name] = afterStatus;
    if (afterStatus) ret.comment = `Started service ${name}`;
    else {
      ret.comment = `Service ${name} failed to start`;
      ret.result = false;
    }
    const toggled = this.toggle(enable, name, afterStatus, ctx.test, kwargs, afterStatus);
    if (toggled) Object.assign(ret, await toggled);
    if (initDelay) ret.comment = `${String(ret.comment)}\nDelayed return for ${initDelay} seconds`;
    if (kwargs.unmask) ret.comment = [String(ret.comment), unmaskComment].join('\n');
    return ret;
  }

  @State({
    summary: 'Ensure that the named service is dead by stopping the service if it is running',
    description:
      'enable: True/False also enables or disables it at boot; sig: the text to find its process with ps; ' +
      'init_delay: seconds to wait after stopping before checking; no_block: systemd only.',
    examples: ["salt '*' state.single service.dead nginx enable=False"],
    args: RUN_ARGS,
    kwargs: true,
  })
  async dead(args: RunArgs, ctx: StateContext): Promise<StateReturn> {
    const { name, sig, init_delay: initDelay } = args;
    const kwargs = args.kwargs ?? {};
    const enable = ServiceStates.enableArg(args.enable);
    const ret: Ret = { name, changes: {}, result: true, comment: '' };
    if ('enabled' in kwargs) return enabledUsedError(ret);
    if (await this.offline()) return { ...ret, result: true, comment: 'Running in OFFLINE mode. Nothing to do' };
    try {
      if (!(await this.available(name, ret))) {
        if (ctx.test) {
          ret.result = null;
          ret.comment = `Service ${name} not present; if created in this state run, it would have been stopped`;
        } else ret.result = true; // A service that is not there is dead enough: Salt does not fail.
        return ret;
      }
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { ...ret, result: false, comment: message };
    }
    const [statusKwargs, statusWarnings] = this.systemdOnly('status', kwargs);
    if (statusWarnings.length) addWarnings(ret, statusWarnings);
    const beforeStatus = await this.status(name, sig, statusKwargs);
    const beforeEnabled = this.has('enabled') ? Boolean(await this.call('enabled', [name])) : true;
    if (!beforeStatus) {
      ret.comment = `The service ${name} is already dead`;
      if (enable === true && !beforeEnabled) Object.assign(ret, await this.setBoot(true, name, null, ctx.test, kwargs));
      else if (enable === false && beforeEnabled) Object.assign(ret, await this.setBoot(false, name, null, ctx.test, kwargs));
      return ret;
    }
    if (ctx.test) return { ...ret, result: null, comment: `Service ${name} is set to be killed` };
    const [stopKwargs, stopWarnings] = this.systemdOnly('stop', kwargs);
    if (stopWarnings.length) addWarnings(ret, stopWarnings);
    if (!(await this.call('stop', [name], stopKwargs))) {
      ret.result = false;
      ret.comment = `Service ${name} failed to die`;
      const toggled = this.toggle(enable, name, true, ctx.test, kwargs, false);
      if (toggled) Object.assign(ret, await toggled);
      return ret;
    }
    if (initDelay) await delay(initDelay);
    // Salt checks the status after stopping without `sig`.
    const afterStatus = await this.status(name, undefined, statusKwargs);
    const afterEnabled = this.has('enabled') ? Boolean(await this.call('enabled', [name])) : true;
    if ((beforeEnabled !== afterEnabled || beforeStatus !== afterStatus) && Object.keys(ret.changes).length === 0)
      ret.changes[name] = afterStatus;
    if (afterStatus) {
      ret.result = false;
      ret.comment = `Service ${name} failed to die`;
    } else ret.comment = `Service ${name} was killed`;
    const toggled = this.toggle(enable, name, afterStatus, ctx.test, kwargs, !afterStatus);
    if (toggled) Object.assign(ret, await toggled);
    return ret;
  }

  @State({
    summary: 'Ensure that the service is enabled on boot (without managing the running process)',
    examples: ["salt '*' state.single service.enabled nginx"],
    args: { name: arg.string({ nonEmpty: true }) },
    kwargs: true,
  })
  async enabled(args: { name: string; kwargs: Kwargs }, ctx: StateContext): Promise<StateReturn> {
    const { name } = args;
    const ret: Ret = { name, changes: {}, result: true, comment: '' };
    Object.assign(ret, await this.setBoot(true, name, null, ctx.test, args.kwargs ?? {}));
    if (ctx.test && ret.comment === `The named service ${name} is not available`) {
      ret.result = null;
      ret.comment = `Service ${name} not present; if created in this state run, it would have been enabled`;
    }
    return ret;
  }

  @State({
    summary: 'Ensure that the service is disabled on boot (without managing the running process)',
    examples: ["salt '*' state.single service.disabled nginx"],
    args: { name: arg.string({ nonEmpty: true }) },
    kwargs: true,
  })
  async disabled(args: { name: string; kwargs: Kwargs }, ctx: StateContext): Promise<StateReturn> {
    const ret: Ret = { name: args.name, changes: {}, result: true, comment: '' };
    Object.assign(ret, await this.setBoot(false, args.name, null, ctx.test, args.kwargs ?? {}));
    return ret;
  }

  /** masked/unmasked share everything but the direction. */
  private async mask(name: string, runtime: boolean, ctx: StateContext, wantMasked: boolean): Promise<StateReturn> {
    const ret: Ret = { name, changes: {}, result: true, comment: '' };
    if (!this.has('masked')) return { ...ret, comment: 'Service masking not available on this minion', result: false };
    const maskType = runtime ? 'runtime masked' : 'masked';
    const action = wantMasked ? maskType : runtime ? 'runtime unmasked' : 'unmasked';
    const expected = { [maskType]: { old: !wantMasked, new: wantMasked } };
    try {
      const isMasked = async (): Promise<boolean> => Boolean(await this.call('masked', [name, runtime]));
      if ((await isMasked()) === wantMasked) {
        ret.comment = wantMasked ? `Service ${name} is already ${maskType}` : `Service ${name} was already ${action}`;
        return ret;
      }
      if (ctx.test) return { ...ret, result: null, changes: expected, comment: `Service ${name} would be ${action}` };
      await this.call(wantMasked ? 'mask' : 'unmask', [name, runtime]);
      if ((await isMasked()) === wantMasked) {
        ret.changes = expected;
        ret.comment = `Service ${name} was ${action}`;
      } else ret.comment = wantMasked ? `Failed to mask service ${name}` : `Failed to unmask service ${name}`;
      return ret;
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { ...ret, result: false, comment: message };
    }
  }

  @State({
    summary: 'Ensure that the named service is masked (prevented from being started); systemd only',
    description: 'runtime: True manages a runtime mask (until the next boot) instead of an indefinite one.',
    examples: ["salt '*' state.single service.masked foo runtime=True"],
    args: { name: arg.string({ nonEmpty: true }), runtime: arg.boolean({ default: false }) },
  })
  masked({ name, runtime }: { name: string; runtime: boolean }, ctx: StateContext): Promise<StateReturn> {
    return this.mask(name, runtime, ctx, true);
  }

  @State({
    summary: 'Ensure that the named service is unmasked; systemd only',
    description: 'runtime: True manages the runtime mask instead of the indefinite one.',
    examples: ["salt '*' state.single service.unmasked foo"],
    args: { name: arg.string({ nonEmpty: true }), runtime: arg.boolean({ default: false }) },
  })
  unmasked({ name, runtime }: { name: string; runtime: boolean }, ctx: StateContext): Promise<StateReturn> {
    return this.mask(name, runtime, ctx, false);
  }

  @State({
    modWatch: true,
    summary: 'The service watcher: restart (or reload) the service when a watched state changed',
    description:
      'reload: True reloads instead of restarting (force: True uses force_reload); full_restart: True uses ' +
      'full_restart where the backend has it; init_delay: seconds to wait after; sfun: the watching function.',
    args: {
      name: arg.string({ nonEmpty: true }),
      sfun: arg.string({ optional: true }),
      sig: arg.string({ optional: true }),
      reload: arg.boolean({ default: false }),
      full_restart: arg.boolean({ default: false }),
      init_delay: arg.number({ optional: true, min: 0 }),
      force: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async mod_watch(args: WatchArgs, ctx: StateContext): Promise<StateReturn> {
    const { name, sfun, sig } = args;
    const kwargs = args.kwargs ?? {};
    const ret: Ret = { name, changes: {}, result: true, comment: '' };
    const [statusKwargs, statusWarnings] = this.systemdOnly('status', kwargs);
    if (statusWarnings.length) addWarnings(ret, statusWarnings);
    let fun: string;
    let verb: string;
    let pastParticiple: string;
    if (sfun === 'dead') {
      verb = 'stop';
      pastParticiple = 'stopped';
      if (!(await this.status(name, sig, statusKwargs))) return { ...ret, result: true, comment: `Service is already ${pastParticiple}` };
      fun = 'stop';
    } else if (sfun === 'running') {
      if (await this.status(name, sig, statusKwargs)) {
        if (this.has('reload') && args.reload) {
          [fun, verb] = this.has('force_reload') && args.force ? ['force_reload', 'forcefully reload'] : ['reload', 'reload'];
        } else if (this.has('full_restart') && args.full_restart) [fun, verb] = ['full_restart', 'fully restart'];
        else [fun, verb] = ['restart', 'restart'];
      } else [fun, verb] = ['start', 'start'];
      pastParticiple = `${verb}ed`;
    } else return { ...ret, comment: `Unable to trigger watch for service.${String(sfun)}`, result: false };

    if (ctx.test) return { ...ret, result: null, comment: `Service is set to be ${pastParticiple}` };
    // Salt stops a service before starting it from a watch.
    if (verb === 'start' && this.has('stop')) await this.call('stop', [name]);
    const [funKwargs, warnings] = this.systemdOnly(fun, kwargs);
    if (warnings.length) addWarnings(ret, warnings);
    let result: unknown;
    try {
      result = await this.call(fun, [name], funKwargs);
    } catch (err) {
      const message = commandError(err);
      if (message === null) throw err;
      return { ...ret, result: false, comment: message };
    }
    if (args.init_delay) await delay(args.init_delay);
    ret.changes = { [name]: result };
    ret.result = result as boolean;
    ret.comment = result ? `Service ${pastParticiple}` : `Failed to ${verb} the service`;
    return ret;
  }
}

/** Salt's _enabled_used_error: `enabled:` where `enable:` was meant. */
function enabledUsedError(ret: Ret): Ret {
  ret.result = false;
  ret.comment = `Service ${ret.name} uses non-existent option "enabled".  Perhaps "enable" option was intended?`;
  return ret;
}
