/**
 * Salt's NetapiClient (salt/netapi/__init__.py) with the master-side checks Salt's master makes
 * for it (salt/master.py ClearFuncs publish/runner/wheel): one lowstate chunk in, its return out.
 *
 * Clients: local, local_async, local_batch, local_subset, runner, runner_async, wheel,
 * wheel_async (ssh is known but brine has no salt-ssh). Nothing runs unless the master's
 * `netapi_enable_clients` lists the client. A chunk authenticates with `token` (a Salt eauth
 * token, put there by the session) or with `username`/`password`/`eauth` (`/run`).
 */
import { BrineError } from '../core/errors';
import { authCheck, fillAuthList, specCheck, type AuthList, type ResolveTarget } from './acl';
import type { LoadAuth } from './auth';
import { HttpError } from './http-error';
import type { Chunk } from './lowstate';
import type { JobRunner, LocalJob } from '../core/client/local-jobs';
import type { FunctionTable } from '../runners/master-functions';
import { utcStamp } from '../core/pycompat/local-time';

export type { JobRunner, LocalJob };

/** A runner or wheel function salt-api was asked for that does not exist (`'mod.fun' is not available.`). */
class NotAvailableError extends BrineError<'NO_RUNNER' | 'NO_WHEEL'> {}

/** Every client name salt-api knows, in Salt's order (GET / lists them, enabled or not). */
export const CLIENTS = [
  'local',
  'local_async',
  'local_batch',
  'local_subset',
  'runner',
  'runner_async',
  'ssh',
  'wheel',
  'wheel_async',
] as const;

/** What a generator client (local_batch) answers: each item is its own entry of `return`. */
export class Yielded {
  constructor(readonly items: unknown[]) {}
}

/** Where async runner and wheel calls go: they run in the background and report on the event bus. */
export interface Background {
  /** A new jid (the master's format). */
  jid(): string;
  fire(tag: string, data: Record<string, unknown>): void;
}

export interface NetapiDeps {
  enabledClients: readonly string[];
  auth: LoadAuth;
  resolveTarget: ResolveTarget;
  jobs: JobRunner;
  runners: FunctionTable;
  wheels: FunctionTable;
  background: Background;
  log: { warning(msg: string): void; error(msg: string): void };
}

/**
 * Keys of a runner or wheel chunk that are not arguments of the function: Salt's _reformat_low
 * takes out the credentials, `client`, `fun`, `arg` and `kwarg`, and NetapiClient.runner's own
 * parameters `timeout` and `full_return`; every other key (`tgt`, `match`, ...) is a keyword argument.
 */
const CONTROL_KEYS = new Set([
  'client',
  'fun',
  'token',
  'eauth',
  'username',
  'password',
  'user',
  'key',
  'arg',
  'kwarg',
  'timeout',
  'full_return',
]);

function dict(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Salt's condition_kwarg: the chunk's `kwarg` dict rides at the end of `arg` as `{__kwarg__: true, ...}`. */
function publishArgs(chunk: Chunk): unknown[] {
  const arg = Array.isArray(chunk.arg) ? [...chunk.arg] : chunk.arg === undefined ? [] : [chunk.arg];
  const kwarg = dict(chunk.kwarg);
  if (Object.keys(kwarg).length > 0) arg.push({ __kwarg__: true, ...kwarg });
  return arg;
}

/** The keyword arguments of a runner or wheel call: `kwarg`, then every other non-control key of the chunk. */
function functionKwargs(chunk: Chunk): Record<string, unknown> {
  const kw: Record<string, unknown> = { ...dict(chunk.kwarg) };
  for (const [k, v] of Object.entries(chunk)) if (!CONTROL_KEYS.has(k)) kw[k] = v;
  return kw;
}

function now(): string {
  return utcStamp();
}

export class Netapi {
  constructor(private readonly deps: NetapiDeps) {}

  /** NetapiClient.run: checks the client and the credentials, then runs the chunk. */
  async run(chunk: Chunk): Promise<unknown> {
    const client = chunk.client;
    if (typeof client !== 'string' || !(CLIENTS as readonly string[]).includes(client)) {
      throw new HttpError(400, `Invalid client specified: '${client === undefined || client === null ? 'None' : String(client)}'`);
    }
    if (!this.deps.enabledClients.includes(client)) {
      throw new HttpError(400, `Client disabled: '${client}'. Add to 'netapi_enable_clients' master config option to enable.`);
    }
    if (!('token' in chunk) && !('eauth' in chunk)) throw new HttpError(401, 'No authentication credentials given');
    if (typeof chunk.fun !== 'string' || chunk.fun === '')
      throw new HttpError(400, `Missing the function to run: add "fun" to the ${client} chunk`);
    switch (client) {
      case 'local':
      case 'local_async':
      case 'local_batch':
      case 'local_subset':
        return this.local(client, chunk);
      case 'runner':
      case 'runner_async':
        return this.master('runner', client === 'runner_async', chunk);
      case 'wheel':
      case 'wheel_async':
        return this.master('wheel', client === 'wheel_async', chunk);
      default:
        throw new HttpError(400, `Client '${client}' is not available in brine (it has no salt-ssh)`);
    }
  }

  /** The user and auth list of a chunk's credentials, or null when they do not authenticate. */
  private async identify(
    chunk: Chunk,
  ): Promise<{ kind: 'token' | 'eauth'; user: string; authList: AuthList } | { kind: 'token' | 'eauth'; error: string; user: string }> {
    if ('token' in chunk) {
      const token = this.deps.auth.getToken(chunk.token);
      if (!token) return { kind: 'token', error: 'Authentication failure of type "token" occurred.', user: 'UNKNOWN' };
      return { kind: 'token', user: token.name, authList: this.deps.auth.authList(token) };
    }
    const user = typeof chunk.username === 'string' ? chunk.username : 'UNKNOWN';
    const creds = { username: chunk.username, password: chunk.password, eauth: chunk.eauth };
    if (!(await this.deps.auth.authenticate(creds)))
      return { kind: 'eauth', error: `Authentication failure of type "eauth" occurred for user ${user}.`, user };
    const config = this.deps.auth.eauthConfig(String(chunk.eauth)) ?? {};
    return { kind: 'eauth', user, authList: fillAuthList(config, user, []) };
  }

  private async local(client: string, chunk: Chunk): Promise<unknown> {
    const who = await this.identify(chunk);
    if ('error' in who) {
      this.deps.log.warning(`Authentication failure of type "${who.kind}" occurred.`);
      throw new HttpError(401, 'Authentication error occurred.');
    }
    const tgt = chunk.tgt as string | string[] | undefined;
    if (tgt === undefined || (typeof tgt !== 'string' && !Array.isArray(tgt)))
      throw new HttpError(400, `Missing the target: add "tgt" to the ${client} chunk`);
    const tgtType = typeof chunk.tgt_type === 'string' ? chunk.tgt_type : 'glob';
    const job: LocalJob = {
      tgt,
      tgtType,
      fun: String(chunk.fun),
      arg: publishArgs(chunk),
      user: who.user,
      timeoutSec: typeof chunk.timeout === 'number' ? chunk.timeout : undefined,
      ret: typeof chunk.ret === 'string' ? chunk.ret : undefined,
    };
    let allowed: boolean;
    try {
      allowed = job.fun === 'saltutil.find_job' || authCheck(who.authList, job.fun, job.arg, tgt, tgtType, this.deps.resolveTarget);
    } catch (err) {
      if (err instanceof BrineError) throw new HttpError(400, err.message);
      throw err;
    }
    if (!allowed) {
      this.deps.log.warning(`Authorization failure: ${who.user} may not run ${job.fun} on ${JSON.stringify(tgt)}`);
      throw new HttpError(401, 'Authorization error occurred.');
    }
    if (client === 'local_async') return (await this.deps.jobs.runAsync(job)) ?? {};
    if (client === 'local_batch') {
      const out: unknown[] = [];
      for await (const r of this.deps.jobs.runBatch(job, String(chunk.batch ?? '10%'))) out.push({ [r.id]: r.return });
      return new Yielded(out);
    }
    if (client === 'local_subset') {
      throw new HttpError(400, 'Client local_subset is not supported by brine yet: use local with a list target');
    }
    const res = await this.deps.jobs.run(job);
    if (!res) return {};
    const out: Record<string, unknown> = {};
    const full = chunk.full_return === true || chunk.full_return === 'true' || chunk.full_return === 'True';
    for (const r of res.returns) out[r.id] = full ? { ret: r.return, retcode: r.retcode, jid: res.jid } : r.return;
    return out;
  }

  /** runner / wheel (sync or async), with Salt's runner_check / wheel_check. */
  private async master(form: 'runner' | 'wheel', async: boolean, chunk: Chunk): Promise<unknown> {
    const who = await this.identify(chunk);
    if ('error' in who) throw new HttpError(401, who.error);
    const fun = String(chunk.fun);
    const kwargs = functionKwargs(chunk);
    const check = specCheck(who.authList, fun, dict(chunk.kwarg), form);
    if (check !== true) {
      if (typeof check === 'object') throw new HttpError(400, check.error.message);
      throw new HttpError(401, `Authentication failure of type "${who.kind}" occurred for user ${who.user}.`);
    }
    const args = Array.isArray(chunk.arg) ? chunk.arg : chunk.arg === undefined ? [] : [chunk.arg];
    const table = form === 'runner' ? this.deps.runners : this.deps.wheels;
    const jid = this.deps.background.jid();
    const prefix = form === 'runner' ? 'run' : 'wheel';
    const tag = `salt/${prefix}/${jid}`;
    if (form === 'runner') {
      const f = table.get(fun);
      if (!f) {
        // Salt's runner client raises, and rest_cherrypy answers 500 with a JSON body.
        this.deps.log.error(`Runner function '${fun}' is not available`);
        throw new NotAvailableError('NO_RUNNER', `'${fun}' is not available.`);
      }
      const run = async () => {
        const data = { fun: `runner.${fun}`, fun_args: args, jid, user: who.user, _stamp: now() };
        this.deps.background.fire(`${tag}/new`, data);
        try {
          const ret = await f.call(args, kwargs, { user: who.user });
          this.deps.background.fire(`${tag}/ret`, {
            fun: `runner.${fun}`,
            fun_args: args,
            jid,
            user: who.user,
            return: ret,
            success: true,
            _stamp: now(),
          });
          return ret;
        } catch (err) {
          this.deps.background.fire(`${tag}/ret`, {
            fun: `runner.${fun}`,
            fun_args: args,
            jid,
            user: who.user,
            return: String((err as Error).message),
            success: false,
            _stamp: now(),
          });
          throw err;
        }
      };
      if (async) {
        run().catch((err) => this.deps.log.error(`Runner ${fun} (${jid}) failed: ${(err as Error).message}`));
        return { tag, jid };
      }
      return run();
    }
    // wheel: the answer carries the job's data, success false on failure (Salt's ClearFuncs.wheel).
    const data: Record<string, unknown> = { fun: `wheel.${fun}`, jid, tag, user: who.user };
    const runWheel = async () => {
      data._stamp = now();
      this.deps.background.fire(`${tag}/new`, { ...data });
      const f = table.get(fun);
      try {
        if (!f) throw new NotAvailableError('NO_WHEEL', `'${fun}' is not available.`);
        data.return = await f.call(args, kwargs, { user: who.user });
        data.success = true;
      } catch (err) {
        data.return = `Exception occurred in wheel ${fun}: ${(err as Error).name === 'BrineError' || err instanceof BrineError ? 'CommandExecutionError' : (err as Error).name}: ${(err as Error).message}`;
        data.success = false;
      }
      this.deps.background.fire(`${tag}/ret`, { ...data });
      return { tag, data };
    };
    if (async) {
      runWheel().catch((err) => this.deps.log.error(`Wheel ${fun} (${jid}) failed: ${(err as Error).message}`));
      return { tag, jid };
    }
    return runWheel();
  }
}
