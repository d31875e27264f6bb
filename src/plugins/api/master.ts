/**
 * The services master-side plugins (`@Runner`, `@Wheel`) ask for: they run on the master's host,
 * in `salt-run` and in salt-api, with the master's configuration as their {@link IConfig}.
 */

/** One job for {@link IMaster.cmd}. */
export interface MinionCall {
  /** The target: an id glob by default, or a list, grain, compound... expression (`tgtType`). */
  tgt: string | string[];
  fun: string;
  /** Positional arguments; a trailing `{ __kwarg__: true, ... }` map carries keyword arguments, as on the wire. */
  arg?: unknown[];
  /** Salt's `tgt_type`: glob (default), list, grain, pcre, compound, nodegroup, ... */
  tgtType?: string;
  /** Seconds to wait for the minions (default: the master's `timeout`). */
  timeout?: number;
  /** Seconds the minions still missing after `timeout` get to answer `saltutil.find_job` (default: the master's `gather_job_timeout`). */
  gatherJobTimeout?: number;
}

/** One minion's answer to an {@link IMaster.cmd} job. */
export interface MinionAnswer {
  id: string;
  return: unknown;
  retcode: number;
}

/** Whose pillar {@link IMaster.compilePillar} and {@link IMaster.pillarTop} compile, and how. */
export interface PillarFor {
  /** The minion id the top files match (Salt compiles for `*` too: the "global" pillar). */
  minionId: string;
  /** The grains the pillar files render and match with (usually {@link IMaster.cachedGrains}). */
  grains: Record<string, unknown>;
  /** Salt's `saltenv` (which environment counts with `pillar_source_merging_strategy: none`). */
  saltenv?: string;
  /** Compile only this pillar environment (default: the master's `pillarenv`). */
  pillarenv?: string | null;
}

/**
 * The master as a runner sees it: publish jobs to minions and wait for them (Salt's
 * `LocalClient.cmd` in a runner), and the master's own knowledge of its minions.
 *
 * @example
 * const answers = await this.master.cmd({ tgt: '*', fun: 'test.version' });
 * // [{ id: 'web1', return: '3007.10', retcode: 0 }, ...]
 * this.master.acceptedMinions();            // ['db1', 'web1']
 * this.master.cachedGrains('web1').os;       // 'Debian'
 * await this.master.compilePillar({ minionId: 'web1', grains: this.master.cachedGrains('web1') });
 */
export interface IMaster {
  /**
   * Publishes a job and waits as `salt` does (the timeout, then `saltutil.find_job` for the
   * minions still busy): the answers of the minions that returned, in arrival order. An empty
   * list when no minion matched the target.
   */
  cmd(call: MinionCall): Promise<MinionAnswer[]>;
  /** The ids of the accepted minions, sorted. */
  acceptedMinions(): string[];
  /** The accepted minions a target matches, judged from the master's cached grains (Salt's CkMinions). */
  match(tgt: string | string[], tgtType?: string): string[];
  /** A minion's grains as the master cached them ({} when none). */
  cachedGrains(id: string): Record<string, unknown>;
  /** A minion's pillar as the master cached it ({} when none). */
  cachedPillar(id: string): Record<string, unknown>;
  /**
   * Compiles a pillar from the master's pillar_roots and ext_pillar as the master would for that
   * minion, without caching it; render problems end up in `_errors`.
   */
  compilePillar(request: PillarFor): Promise<Record<string, unknown>>;
  /**
   * The master's pillar top data, every environment's targets merged but not matched, and the
   * top files' render errors.
   */
  pillarTop(request: PillarFor): Promise<{ top: Record<string, Record<string, unknown[]>>; errors: string[] }>;
  /**
   * Runs a runner function (what `salt-run` runs; Salt's `saltutil.runner`) and answers its
   * return; an error it raises is thrown. An orchestration's `salt.runner` states use it.
   */
  runner(fun: string, args?: unknown[], kwargs?: Record<string, unknown>): Promise<unknown>;
  /** Runs a wheel function (`key.accept`, ...; Salt's `saltutil.wheel`) and answers its return. */
  wheel(fun: string, args?: unknown[], kwargs?: Record<string, unknown>): Promise<unknown>;
}
/** Service id of {@link IMaster}. @example constructor(@inject(IMaster) private readonly master: IMaster) {} */
export const IMaster: unique symbol = Symbol.for('brine.IMaster');
