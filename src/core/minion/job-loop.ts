import type { MinionConfig } from '../config';
import { logField, type Logger } from '../log';
import { ProtocolError, TransportError } from '../errors';
import type { JobLoad, JobResult } from '../protocol/loads';
import { matchTarget, needsData, type TargetType } from '../targeting';
import { MinionChannel, type ChannelSettings, type PublicationOpener, type Session } from './channel-client';
import { randomDelayMs, returnRetryTimerS, type RandomSource } from './sign-in-policy';
import type { Transport } from '../transport/types';
import type { MasterKeyMismatchError, MinionRejectedError } from './minion-errors';
import { pyAsctime } from '../pycompat/time';
import { utcStamp } from '../pycompat/local-time';
import { JobSlots } from './job-slots';
import { waitForMasterDns } from './master-dns';
import { cacheJobReturn } from './cached-jobs';

/** The minion options the daemon uses: the channel's and the return retries. */
export type MinionSettings = ChannelSettings &
  Pick<MinionConfig, 'return_retry_timer' | 'return_retry_tries'> &
  Partial<
    Pick<
      MinionConfig,
      | 'return_retry_timer_max'
      | 'random_startup_delay'
      | 'startup_states'
      | 'sls_list'
      | 'top_file'
      | 'autosign_grains'
      | 'process_count_max'
      | 'retry_dns'
      | 'retry_dns_count'
      | 'cache_jobs'
      | 'cachedir'
    >
  >;

/** Runs jobs in-process; the plugin registry behind it is the minion's own. */
export interface JobExecutor {
  run(job: JobLoad): Promise<JobResult>;
  /** After the return reached the master: the job's returners (`--return`, `return:`), as Salt's minion. */
  afterReturn?(job: JobLoad, result: JobResult): Promise<void>;
}

/**
 * The minion's grains as the job loop sees them: the current ones for its target check and the
 * `_pillar` request, and a change event (whichever module changed them) so the master gets them.
 */
export interface MinionGrains {
  all(): Record<string, unknown>;
  /** The minion's pillar as last received, for pillar targets (-I, I@). */
  pillar?(): Record<string, unknown> | undefined;
  onChange?(listener: () => void): unknown;
}

export { EXIT_REJECTED, MasterKeyMismatchError, MinionRejectedError } from './minion-errors';
export type { Session } from './channel-client';
export type { JobLoad } from '../protocol/loads';

/**
 * salt-minion's job loop over its channel: signs in, subscribes, announces itself; for each
 * publication checks the target itself, runs the job in-process and sends the return (retrying
 * per return_retry_timer/tries). Grains that a job changed reach the master before its return.
 */
export class Minion {
  readonly channel: MinionChannel;
  /** Set by the grains change event; the next finished job sends grains before its return. */
  private grainsChanged = false;
  private grainsSending: Promise<void> = Promise.resolve();
  private readonly random: RandomSource;
  /** process_count_max: how many jobs may run at once. */
  private readonly slots: JobSlots;
  private readonly lookup: (host: string) => Promise<unknown>;

  /**
   * Settles when the minion cannot go on after start: its key was rejected (the daemon exits with
   * 77) or the master presents another key.
   */
  readonly fatal: Promise<MinionRejectedError | MasterKeyMismatchError>;

  constructor(
    private readonly settings: MinionSettings,
    private readonly executor: JobExecutor,
    private readonly grains: MinionGrains,
    private readonly log: Logger,
    options: {
      random?: RandomSource;
      channel?: MinionChannel;
      transport?: Transport;
      openPublication?: PublicationOpener;
      /** How the master's name is looked up at start (retry_dns): dns.promises.lookup unless given. */
      lookup?: (host: string) => Promise<unknown>;
    } = {},
  ) {
    this.lookup = options.lookup ?? ((host) => (require('node:dns/promises') as typeof import('node:dns/promises')).lookup(host));
    this.random = options.random ?? Math.random;
    this.slots = new JobSlots(settings.process_count_max ?? -1);
    // Salt's autosign_grains: the values of these grains go with each sign-in, for the master's autosign_grains_dir.
    const names = settings.autosign_grains ?? [];
    const autosignGrains =
      names.length > 0
        ? () => {
            const all = grains.all();
            return Object.fromEntries(names.map((g) => [g, all[g] ?? null]));
          }
        : undefined;
    this.channel =
      options.channel ??
      new MinionChannel(settings, log, {
        random: options.random,
        transport: options.transport,
        autosignGrains,
        openPublication: options.openPublication,
      });
    this.fatal = this.channel.fatal;
    grains.onChange?.(() => {
      this.grainsChanged = true;
    });
  }

  get id(): string {
    return this.settings.id;
  }

  /** Signs in (waiting while the key is pending), subscribes and announces itself. */
  async start(): Promise<void> {
    const s = this.settings;
    this.log.info(`Setting up the Salt Minion "${s.id}"`);
    if (s.random_startup_delay) {
      // Salt's random_startup_delay: a fleet started at once does not sign in at once.
      const delay = randomDelayMs(s.random_startup_delay, this.random);
      this.log.info(
        `Minion sleeping for ${delay / 1000} seconds due to configured startup_delay between 0 and ${s.random_startup_delay} seconds`,
      );
      await this.channel.pause(delay);
    }
    // Salt's resolve_dns: a master name that does not resolve yet is waited for (retry_dns).
    await waitForMasterDns(
      s,
      this.lookup,
      (ms) => this.channel.pause(ms),
      () => this.channel.isStopped,
      this.log,
    );
    await this.channel.connect();
    await this.channel.subscribe((job) => this.onJob(job));
    try {
      await this.announce();
    } catch (err) {
      // Signed in and subscribed, the minion runs jobs: a master that refused or did not answer
      // the announcement (busy, or a Salt master whose workers disagree on our session key) is
      // no reason to exit. Its grains go again before the next return.
      if (!(err instanceof ProtocolError || err instanceof TransportError) || this.channel.isStopped) throw err;
      this.grainsChanged = true;
      this.log.warning(`Could not announce this minion to the master: ${logField(err.message, 300)}; its grains go with the next return`);
    }
    this.log.info(`Minion "${s.id}" is ready: signed in and subscribed to ${s.master}:${this.channel.publishPort}`);
    const startup = this.startupStateJob();
    if (startup) void this.runOwnJob(startup);
  }

  /**
   * Salt's startup_states (Minion._state_run): `sls` runs state.sls of sls_list, `top` state.top
   * of top_file, any other value state.highstate; its return goes to the master as a job of the
   * minion's own (jid `req`), as salt-call's does.
   */
  private startupStateJob(): JobLoad | undefined {
    const { startup_states: kind, id } = this.settings;
    if (!kind) return undefined;
    const [fun, arg]: [string, unknown[]] =
      kind === 'sls'
        ? ['state.sls', [this.settings.sls_list ?? []]]
        : kind === 'top'
          ? ['state.top', [this.settings.top_file ?? '']]
          : ['state.highstate', []];
    return { fun, arg, jid: 'req', tgt: id, tgt_type: 'glob', ret: '', user: 'root' };
  }

  /** A job the minion starts itself: run, then returned like a published one. */
  private async runOwnJob(job: JobLoad): Promise<void> {
    this.log.info(`Running ${String(job.fun)} for startup_states`);
    try {
      const result = await this.executor.run(job);
      await this.flushGrains();
      await this.deliverReturn(job, result);
      await this.executor.afterReturn?.(job, result);
    } catch (err) {
      this.log.error(`startup_states: ${String(job.fun)} failed: ${logField((err as Error).message, 500)}`);
    }
  }

  /** Keys, the request channel and sign-in, without subscribing: what salt-call needs (`once`: see ChannelClient.connect). */
  connect(options: { once?: boolean } = {}): Promise<Session> {
    return this.channel.connect(options);
  }

  /** An aes request to the master and its decrypted answer (the file client uses this). */
  request(load: Record<string, unknown>): Promise<unknown> {
    return this.channel.request(load);
  }

  /** Sends our current grains to the master, which targets with them (Salt's pillar refresh). */
  async sendGrains(): Promise<void> {
    await this.channel.request({
      cmd: '_pillar',
      id: this.settings.id,
      grains: this.grains.all(),
      saltenv: 'base',
      pillarenv: null,
      pillar_override: {},
      extra_minion_data: {},
      ver: '2',
    });
  }

  /**
   * Salt's ping_master (`ping_interval`): a `minion_ping` event to the master, which must answer
   * within `timeoutMs` (Salt's _fire_master waits 60 s).
   */
  async pingMaster(timeoutMs = 60_000): Promise<void> {
    await this.channel.request({ cmd: '_minion_event', id: this.settings.id, tag: 'minion_ping', data: 'ping', pretag: null }, timeoutMs);
  }

  /** Sends a job's return to the master (salt-call sends its local result with jid "req"). */
  async sendReturn(job: JobLoad, result: JobResult): Promise<void> {
    await this.deliverReturn(job, result);
  }

  stop(): Promise<void> {
    this.slots.close();
    return this.channel.stop();
  }

  private async announce(): Promise<void> {
    const id = this.settings.id;
    // Salt's text: time.asctime(), as `Minion web1 started at Wed Dec  2 12:56:12 2026`.
    const started = `Minion ${id} started at ${pyAsctime()}`;
    await this.sendGrains();
    await this.channel.request({ cmd: '_minion_event', id, tag: 'minion_start', data: started, pretag: null });
    await this.channel.request({ cmd: '_minion_event', id, tag: `salt/minion/${id}/start`, data: started, pretag: null });
  }

  /** One publication the channel opened: ours if the target matches, then run and return. */
  private async onJob(job: JobLoad): Promise<void> {
    const target = { tgt: job.tgt, tgtType: (job.tgt_type ?? 'glob') as TargetType, delimiter: job.delimiter as string | undefined };
    let mine: boolean;
    try {
      // An id target (glob, pcre, list: nearly every job) needs no grains: all() copies them.
      const id = this.settings.id;
      mine = matchTarget(
        target,
        needsData(target) ? { id, grains: this.grains.all(), pillar: this.grains.pillar?.() } : { id, grains: {} },
      );
    } catch (err) {
      // A target this minion cannot evaluate (too large, malformed) is not a match: say so, briefly.
      this.log.warning(`Ignored job ${logField(job.jid, 40)}: its target cannot be matched: ${logField((err as Error).message, 300)}`);
      return;
    }
    if (!mine) return;
    const slot = await this.slots.take(() =>
      this.log.warning(`Maximum number of processes reached while executing jid ${job.jid}, waiting...`),
    );
    if (!slot) return; // the minion is stopping
    try {
      this.log.info(`User ${job.user ?? 'root'} Executing command ${String(job.fun)} with jid ${job.jid}`);
      const result = await this.executor.run(job);
      await this.flushGrains();
      await this.deliverReturn(job, result);
      await this.executor
        .afterReturn?.(job, result)
        .catch((err) => this.log.error(`The return failed for job ${job.jid}: ${(err as Error).message}`));
    } finally {
      this.slots.release();
    }
  }

  /**
   * Grains that changed reach the master before the return does, so a target right after
   * `saltutil.refresh_grains` (or any module's change) already sees them. A job that finishes
   * while another's send is under way waits for that send too.
   */
  private async flushGrains(): Promise<void> {
    if (this.grainsChanged) {
      this.grainsChanged = false;
      this.grainsSending = this.sendGrains().catch((err) => this.log.warning(`Could not send grains: ${(err as Error).message}`));
    }
    await this.grainsSending;
  }

  /**
   * Salt's cache_jobs: the return as Salt's minion keeps it (`{success, return, retcode, [out],
   * jid, fun, fun_args, user, [metadata]}`) under `<cachedir>/minion_jobs/<jid>`, before it goes
   * to the master. A cache that cannot be written costs a warning, never the return.
   */
  private cacheReturn(job: JobLoad, result: JobResult, metadata: unknown): void {
    const ret: Record<string, unknown> = { success: result.success, return: result.return, retcode: result.retcode };
    if (result.out !== undefined) ret.out = result.out;
    Object.assign(ret, { jid: job.jid, fun: job.fun, fun_args: job.arg, user: job.user ?? 'root' });
    if (metadata !== undefined) ret.metadata = metadata;
    try {
      cacheJobReturn(this.settings.cachedir ?? '', ret as Record<string, unknown> & { jid: string });
    } catch (err) {
      this.log.warning(`Could not cache the return of job ${job.jid} (cache_jobs): ${logField((err as Error).message, 300)}`);
    }
  }

  private async deliverReturn(job: JobLoad, result: JobResult): Promise<void> {
    const load: Record<string, unknown> = {
      cmd: '_return',
      id: this.settings.id,
      success: result.success,
      return: result.return,
      retcode: result.retcode,
      jid: job.jid,
      fun: job.fun,
      fun_args: job.arg,
      user: job.user ?? 'root',
    };
    if (result.out !== undefined) load.out = result.out;
    // Salt's minion returns the publication's metadata when it is a dict, and warns otherwise.
    if (job.metadata !== undefined) {
      if (job.metadata !== null && typeof job.metadata === 'object' && !Array.isArray(job.metadata)) load.metadata = job.metadata;
      else this.log.warning('The metadata parameter must be a dictionary. Ignoring.');
    }
    if (this.settings.cache_jobs) this.cacheReturn(job, result, load.metadata);
    load._stamp = utcStamp();
    const { return_retry_tries: tries, return_retry_timer: base, return_retry_timer_max: max } = this.settings;
    // Salt's _return_retry_timer: drawn once for the return, between the timer and its max.
    const timer = returnRetryTimerS(base, max ?? 0, this.random);
    for (let attempt = 0; ; attempt++) {
      try {
        // Salt's return_retry_timer: each try waits this long for the master's answer.
        await this.channel.request(load, timer * 1000);
        return;
      } catch (err) {
        if (attempt >= tries || this.channel.isStopped) {
          this.log.error(`Return of job ${job.jid} could not be delivered: ${(err as Error).message}`);
          return;
        }
        this.log.warning(`Return of job ${job.jid} not acknowledged, retrying in ${timer} s`);
        await this.channel.pause(timer * 1000);
      }
    }
  }
}
