import type { KeyObject } from 'node:crypto';
import { SIG_ALGO, buildPublication } from '../channel';
import type { SigningAlgorithm } from '../crypto/rsa-algorithms';
import { JidFactory, isJid } from '../protocol/jid';
import { logField } from '../log';
import type { PublishReply, PublishRequestLoad, ReturnLoad } from '../protocol/loads';
import { checkTarget, expandNodegroups, expectedMinions, type Target, type TargetType } from '../targeting';
import type { IPublishServer } from '../transport/types';
import type { Logger } from '../log';
import type { MasterEvents } from './events';
import { JobCacheError } from './job-cache/errors';
import type { JobCache, ReturnBatcher } from './job-cache';
import { ExpectedMinions } from './expected-minions';
import type { MinionDataCache } from './minion-data-cache';
import type { PublishKey } from './publish-key';

/** What {@link JobService} works with. */
export interface JobServiceDeps {
  /** The accepted minion ids, as reconciled just before publishing. */
  accepted: () => Iterable<string>;
  dataCache: MinionDataCache;
  masterKey: KeyObject;
  publishKey: PublishKey;
  publisher: Pick<IPublishServer, 'publish'>;
  events: MasterEvents;
  nodegroups: Record<string, string | string[]>;
  cache: { jobs: JobCache; returns: ReturnBatcher };
  log: Logger;
  /** Whether the master holds a session for the minion (it signed in since the master started); default: always. */
  hasSession?: (id: string) => boolean;
  /** Bounds on the jobs kept in memory (default 10,000 jobs, 1,000,000 expected minions in all). */
  remembered?: { jobs: number; ids: number };
  /**
   * Salt's `job_cache`: false stores no returns (the jobs still are), as Salt's `store_job`; the
   * return events still fire. Default true.
   */
  storeReturns?: boolean;
  /** Salt's `sign_pub_messages`: whether publications carry the master's signature. Default true. */
  signPublications?: boolean;
  /** Salt's `publish_signing_algorithm` (default PKCS1v15-SHA1). */
  signingAlgorithm?: SigningAlgorithm;
}

/**
 * Turns the CLI's publish requests into signed, encrypted publications, and returns into events.
 * The expected minions come from the accepted keys and the grains the minions sent, so the CLI
 * knows whom to wait for.
 */
export class JobService {
  private readonly jids = new JidFactory();
  /** The expected minions of recent jobs, newest last: whose returns each job may get. */
  private readonly published = new Map<string, ExpectedMinions>();
  /** The newest job's expected minions, whose ids the next job shares when it expects the same. */
  private newest?: ExpectedMinions;
  private serial = 0;
  private readonly accepted: () => Iterable<string>;
  private readonly dataCache: MinionDataCache;
  private readonly publishKey: PublishKey;
  private readonly publisher: JobServiceDeps['publisher'];
  private readonly events: MasterEvents;
  private readonly nodegroups: Record<string, string | string[]>;
  private readonly cache: { jobs: JobCache; returns: ReturnBatcher };
  private readonly log: Logger;
  private readonly hasSession: (id: string) => boolean;
  /**
   * Jobs remembered in memory, and their expected minions counted together; older jobs are looked
   * up in the job cache. The second bound matters for large fleets: 10,000 jobs to 10,000 minions
   * each would otherwise hold 100 million ids (gigabytes).
   */
  private readonly bounds: { jobs: number; ids: number };
  private rememberedIds = 0;
  private readonly storeReturns: boolean;
  /** The key publications are signed with; null when `sign_pub_messages` is False. */
  private readonly signingKey: KeyObject | null;
  private readonly signingAlgorithm: SigningAlgorithm;

  constructor(deps: JobServiceDeps) {
    ({
      accepted: this.accepted,
      dataCache: this.dataCache,
      publishKey: this.publishKey,
      publisher: this.publisher,
      events: this.events,
      nodegroups: this.nodegroups,
      cache: this.cache,
      log: this.log,
    } = deps);
    this.hasSession = deps.hasSession ?? (() => true);
    this.bounds = deps.remembered ?? { jobs: 10_000, ids: 1_000_000 };
    this.storeReturns = deps.storeReturns ?? true;
    this.signingKey = deps.signPublications === false ? null : deps.masterKey;
    this.signingAlgorithm = deps.signingAlgorithm ?? SIG_ALGO;
  }

  async publish(load: PublishRequestLoad): Promise<PublishReply> {
    const kwargs = (load.kwargs ?? {}) as Record<string, unknown>;
    const delimiter = typeof kwargs.delimiter === 'string' ? kwargs.delimiter : undefined;
    const target: Target = { tgt: load.tgt, tgtType: load.tgt_type as TargetType, delimiter };
    try {
      checkTarget(target, { nodegroups: this.nodegroups });
    } catch (err) {
      return { jid: null, minions: [], error: (err as Error).message };
    }
    const accepted = [...this.accepted()].map((id) => ({ id, grains: this.dataCache.grains(id), pillar: this.dataCache.pillar(id) }));
    let minions: string[];
    try {
      minions = expectedMinions(target, accepted, { nodegroups: this.nodegroups });
    } catch (err) {
      // A target that passes the syntax check can still fail to match (a glob too large to compile).
      return { jid: null, minions: [], error: (err as Error).message };
    }
    if (minions.length === 0) {
      return { jid: null, minions: [], error: `Master could not resolve minions for target ${String(load.tgt)}` };
    }
    const jid = typeof load.jid === 'string' && load.jid !== '' ? load.jid : this.jids.next();
    // Minions do not know the master's nodegroups: they get the expanded compound expression.
    const wire = expandNodegroups(target, { nodegroups: this.nodegroups });
    const job: Record<string, unknown> = {
      fun: load.fun,
      arg: load.arg ?? [],
      tgt: wire.tgt,
      jid,
      ret: load.ret ?? '',
      tgt_type: wire.tgtType,
      user: load.user ?? 'root',
    };
    if (delimiter && delimiter !== ':') job.delimiter = delimiter;
    // Salt's _prep_pub: the client's kwargs.metadata rides in the publication, for the minions to return.
    const metadata = Object.prototype.hasOwnProperty.call(kwargs, 'metadata') ? kwargs.metadata : undefined;
    if (metadata !== undefined) job.metadata = metadata;
    job.serial = ++this.serial;
    // Stored before it is published: a return can never arrive for a job the cache does not know.
    try {
      await this.cache.jobs.saveJob({
        jid,
        tgt: load.tgt,
        tgt_type: load.tgt_type,
        fun: load.fun,
        arg: (load.arg ?? []) as unknown[],
        user: String(job.user),
        minions,
        started: new Date(),
        ...(metadata === undefined ? {} : { metadata }),
      });
    } catch (err) {
      // A returner job cache without prep_jid: as Salt, the publication fails with the reason.
      if (!(err instanceof JobCacheError) || err.code !== 'JOB_NOT_ALLOCATED') throw err;
      this.log.error(err.message);
      return { jid: null, minions: [], error: err.message };
    }
    // Salt's three events of a new job, in its order and shapes (salt/master.py _send_pub and
    // salt/client LocalClient): the bare jid, `new`, then `publish` once it is on the wire.
    this.events.fire(jid, { minions });
    this.events.fire(`salt/job/${jid}/new`, {
      jid,
      tgt_type: load.tgt_type,
      tgt: load.tgt,
      user: job.user,
      fun: load.fun,
      arg: job.arg,
      minions,
      missing: [],
    });
    this.remember(jid, minions);
    await this.publisher.publish([buildPublication(this.publishKey.crypticle, this.signingKey, job, this.signingAlgorithm)]);
    this.events.fire(`salt/job/${jid}/publish`, {
      fun: load.fun,
      arg: job.arg,
      tgt: wire.tgt,
      jid,
      ret: job.ret,
      tgt_type: wire.tgtType,
      user: job.user,
    });
    this.log.info(`User ${job.user} Published command ${load.fun} with jid ${jid}`);
    return { jid, minions, missing: [], not_connected: minions.filter((id) => !this.hasSession(id)) };
  }

  /**
   * Stores the return (the minion is answered only after that, so an acknowledged return survives
   * kill -9), then tells the event bus. A repeated return for the same job is dropped, as in Salt.
   */
  async onReturn(id: string, load: ReturnLoad): Promise<void> {
    // `req`: a job the minion ran for itself (salt-call, its startup_states). Salt's store_job
    // gives it a jid of its own and stores its load (targeted at the minion alone), every time.
    const standalone = load.jid === 'req';
    const jid = standalone ? await this.standaloneJob(id, load) : String(load.jid);
    if (jid === undefined) return;
    if (!this.storeReturns) {
      if (!standalone && !(await this.firstWithoutCache(jid, id))) return;
    } else {
      if (!standalone && !(await this.wasAsked(jid, id))) {
        this.log.warning(`Dropped a return from ${id} for job ${logField(jid, 40)}, which this master did not publish to ${id}`);
        return;
      }
      if (!(await this.store(jid, id, load))) {
        this.log.warning(`Dropped a repeated return from ${id} for job ${jid}`);
        return;
      }
    }
    this.log.info(`Got return from ${id} for job ${jid}`);
    this.events.fire(`salt/job/${jid}/ret/${id}`, {
      cmd: '_return',
      id,
      jid,
      fun: load.fun,
      fun_args: load.fun_args ?? [],
      return: load.return,
      retcode: load.retcode ?? 0,
      success: load.success ?? true,
      ...(load.out === undefined ? {} : { out: load.out }),
      ...(load.metadata === undefined ? {} : { metadata: load.metadata }),
    });
  }

  /** A new jid for a minion's own job, its load stored (unless job_cache is False); undefined when the cache allots none. */
  private async standaloneJob(id: string, load: ReturnLoad): Promise<string | undefined> {
    const jid = this.jids.next();
    if (!this.storeReturns) return jid;
    try {
      await this.cache.jobs.saveJob({
        jid,
        tgt: id,
        tgt_type: 'glob',
        fun: load.fun,
        arg: (load.fun_args ?? []) as unknown[],
        user: load.user ?? 'root',
        minions: [id],
        started: new Date(),
      });
    } catch (err) {
      if (!(err instanceof JobCacheError) || err.code !== 'JOB_NOT_ALLOCATED') throw err;
      this.log.error(err.message);
      return undefined;
    }
    return jid;
  }

  /** Writes the return to the job cache: false when it already holds one for (jid, id). */
  private store(jid: string, id: string, load: ReturnLoad): Promise<boolean> {
    return this.cache.returns.save({
      jid,
      id,
      fun: load.fun,
      fun_args: (load.fun_args ?? []) as unknown[],
      return: load.return,
      retcode: typeof load.retcode === 'number' ? load.retcode : 0,
      success: load.success ?? true,
      at: new Date(),
      ...(typeof load.out === 'string' ? { out: load.out } : {}),
    });
  }

  /**
   * `job_cache: false`: a repeat is known only while the job is remembered, where the first return
   * takes its minion off the job's expected set (for older jobs Salt, storing nothing, knows none).
   */
  private async firstWithoutCache(jid: string, id: string): Promise<boolean> {
    const expected = this.published.get(jid);
    if (expected?.delete(id)) {
      this.rememberedIds--;
      return true;
    }
    if (expected !== undefined || !(await this.wasAsked(jid, id))) {
      this.log.warning(
        `Dropped a return from ${id} for job ${logField(jid, 40)}: not expected from ${id} (not published to it, or it has returned already)`,
      );
      return false;
    }
    return true;
  }

  private remember(jid: string, minions: readonly string[]): void {
    this.forget(jid);
    const expected = ExpectedMinions.of(minions, this.newest);
    this.newest = expected;
    this.published.set(jid, expected);
    this.rememberedIds += expected.size;
    while (this.published.size > 1 && (this.published.size > this.bounds.jobs || this.rememberedIds > this.bounds.ids)) {
      this.forget(this.published.keys().next().value as string);
    }
  }

  private forget(jid: string): void {
    this.rememberedIds -= this.published.get(jid)?.size ?? 0;
    this.published.delete(jid);
  }

  /**
   * Whether `id` was among the minions expected for `jid` (Salt's own `find_job` and `saltutil`
   * queries are published as jobs of their own, so they are covered too).
   */
  private async wasAsked(jid: string, id: string): Promise<boolean> {
    const known = this.published.get(jid);
    if (known) return known.has(id);
    if (!isJid(jid)) return false;
    const job = await this.cache.jobs.getJob(jid);
    return job !== undefined && job.minions.includes(id);
  }
}
