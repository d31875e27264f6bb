import type { MinionConfig } from '../core/config';
import type { Logging } from '../core/log';
import { createNodeIdentitySources, describeIdChoice, resolveMinionId, type MinionIdResult } from '../core/minion/identity';
import { loadMinionConfig } from '../core/config';
import { join } from 'node:path';
import { createLogging } from '../core/log';
// Types only: the job loop (ZeroMQ, the channel) is loaded when a minion connects, so that
// salt-call --local does not pay for it.
import type { JobExecutor, JobLoad, Minion, MinionGrains, MinionSettings } from '../core/minion/job-loop';
import { PluginRuntime } from '../plugins/runtime';
import type { MasterFiles } from '../plugins/services/extension-sync';
import { FileClient } from '../core/minion/file-client';
import { MasterLink } from '../plugins/services/master-link';
import type { IMasterLink } from '../plugins/api/master-link';
import { StaticConfig } from '../plugins/services/config';
import { lazyBuiltins } from '../../plugins/manifest';
import { CommandExecutionError, traverse } from '../plugins/api';
import { MinionPillar, type PillarSource } from '../plugins/services/pillar';
import type { SaltCaller } from '../core/render';
import { pluginPackageDirs } from '../plugins/loader/package-dirs';
import { startDaemon } from './daemon';
import { setV8Flags } from './v8-flags';
import type { ParsedFlags, SALT_MINION } from './flag-specs';
import { lazyModule } from '../core/lazy-module';
import { optimizeFromNow } from './compile-cache';

/**
 * Salt's minion id rules (config `id`, the `minion_id` cache, then the host's names), with a
 * warning and the fix when the result looks shared or stale. The chosen id is written into the
 * configuration so everything after sees one id.
 */
export async function resolveId(config: MinionConfig, logging: Logging, writeCache = true): Promise<MinionIdResult> {
  const log = logging.getLogger('salt.config');
  const result = await resolveMinionId(config, config.config_dir, createNodeIdentitySources(), log, { writeCache });
  config.id = result.id;
  return result;
}

/** The id after resolveId; a configuration that never went through it is a bug. */
export function minionId(config: MinionConfig): string {
  if (typeof config.id !== 'string' || config.id === '') throw new Error('minion id not resolved yet');
  return config.id;
}

/**
 * The minion's plugins (built-ins, module_dirs, plugin packages, synced extensions) with the
 * control that saltutil uses. `files` is the master's file server; salt-call --local has none.
 * Plugin packages (`brine-plugin-*`) are searched in the `plugin_dirs` folders of the config, then
 * in brine's own installation (see pluginPackageDirs).
 */
/**
 * Where this minion's pillar comes from: a `_pillar` request to its master (`request`), or, with
 * no master (salt-call --local, file_client: local), compiled here from the config's pillar_roots
 * with this minion's grains and functions, as Salt's salt-call does.
 */
export function pillarSource(
  config: MinionConfig,
  logging: Logging,
  runtime: () => PluginRuntime,
  request?: (load: Record<string, unknown>) => Promise<unknown>,
): PillarSource {
  const opts = config as unknown as Record<string, unknown>;
  if (request) {
    return async (o) => {
      const reply = await request({
        cmd: '_pillar',
        id: minionId(config),
        grains: runtime().grains(),
        saltenv: o.saltenv ?? (typeof opts.saltenv === 'string' ? opts.saltenv : null),
        pillarenv: o.pillarenv ?? opts.pillarenv ?? null,
        pillar_override: o.override ?? {},
        extra_minion_data: {},
        ver: '2',
      });
      if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) {
        throw new CommandExecutionError(`The master answered the pillar request with ${JSON.stringify(reply)}, not a pillar`);
      }
      return reply as Record<string, unknown>;
    };
  }
  const log = logging.getLogger('salt.pillar');
  return async (o) => {
    // The pillar compiler and its renderers (Jinja, YAML) load with the first local compile only.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { compilePillar } = await lazyModule(
      () => require('../core/pillar/index.js') as typeof import('../core/pillar/index.js'),
      () => import('../core/pillar/index.js'),
    );
    const { extPillarsOf, renderersOf } = await lazyModule(
      () => require('../plugins/render-kinds.js') as typeof import('../plugins/render-kinds.js'),
      () => import('../plugins/render-kinds.js'),
    );
    /* eslint-enable @typescript-eslint/no-require-imports */
    const caller = pillarTemplateCaller(runtime(), o.override ?? {});
    return compilePillar({
      minionId: minionId(config),
      grains: runtime().grains(),
      opts,
      saltenv: o.saltenv ?? (typeof opts.saltenv === 'string' ? opts.saltenv : null),
      pillarenv: o.pillarenv ?? (typeof opts.pillarenv === 'string' ? opts.pillarenv : null),
      pillarOverride: o.override,
      caller,
      renderers: renderersOf(runtime()),
      extPillars: extPillarsOf(runtime()),
      log: { critical: (m) => log.critical(m), error: (m) => log.error(m), warning: (m) => log.warning(m), debug: (m) => log.debug(m) },
    });
  };
}

/**
 * `salt[...]` in pillar templates, on a minion (salt-call --local) or on the master: the
 * runtime's execution functions, except that pillar.* read the pillar being compiled as the
 * override alone (Salt's __pillar__ during a compile), so they never wait for the compile they
 * are part of.
 */
export function pillarTemplateCaller(runtime: PluginRuntime, early: Record<string, unknown>): SaltCaller {
  return {
    call: (fun, args, kwargs) => {
      if (fun === 'pillar.get') return traverse(early, String(args[0]), args[1] ?? kwargs.default ?? '', String(kwargs.delimiter ?? ':'));
      if (fun === 'pillar.items' || fun === 'pillar.raw') return structuredClone(early);
      return runtime.callFunction(fun, args, kwargs);
    },
    has: (fun) => runtime.hasFunction(fun),
  };
}

/**
 * The built-in plugins: from the compiled tree, each module loaded when first asked for
 * (plugins/manifest.ts); from the TypeScript sources (vitest), all of them at once. The master's
 * runners are listed for sys.list_runners / sys.runner_doc; they run on the master only.
 */
async function builtinPlugins() {
  const lazy = lazyBuiltins();
  if (lazy) return lazy;
  const { BUILTIN_MASTER_PLUGINS, BUILTIN_PLUGINS } = await import('../../plugins/index.js');
  return { builtins: BUILTIN_PLUGINS, listedOnly: BUILTIN_MASTER_PLUGINS };
}

export async function startPlugins(
  config: MinionConfig,
  logging: Logging,
  files?: MasterFiles,
  pillar?: MinionPillar,
  masterLink?: IMasterLink,
): Promise<PluginRuntime> {
  const logger = logging.getLogger('salt.loader');
  const packages = pluginPackageDirs((config as unknown as Record<string, unknown>).plugin_dirs);
  for (const p of packages.problems) logger.warning(`${p.origin}: ${p.error.message}`);
  const runtime = await PluginRuntime.start({
    config: new StaticConfig({ ...config, id: minionId(config) } as Record<string, unknown>),
    logger,
    ...(await builtinPlugins()),
    npm: { nodeModules: packages.dirs },
    files,
    pillar,
    masterLink,
  });
  return runtime;
}

export function executorFor(runtime: PluginRuntime): JobExecutor {
  const request = (job: JobLoad) => ({
    fun: String(job.fun),
    arg: job.arg,
    jid: job.jid,
    user: job.user,
    tgt: job.tgt,
    tgtType: job.tgt_type,
    ret: typeof job.ret === 'string' ? job.ret : '',
    ...(job.metadata === undefined ? {} : { metadata: job.metadata }),
  });
  return {
    run: (job: JobLoad) => optimizingWhenBusy(() => runtime.run(request(job), job as Record<string, unknown>)),
    afterReturn: (job, result) => runtime.sendToReturners(request(job), result),
  };
}

/** How often a running job's event loop is looked at, and the busy share that turns TurboFan on. */
const BUSY_CHECK_MS = 1000;
const BUSY_SHARE = 0.5;

/**
 * Runs a job, and turns V8's compilers to machine code on (`optimize`) once the event loop has been
 * busy half of a whole `checkMs` while the job ran: a state run, a loop in a template. salt-minion
 * starts without TurboFan and Sparkplug (bin/salt-minion: TurboFan's code is 3.6 MiB of resident
 * pages once used), and most jobs (test.ping, a cmd.run whose command does the work) never need them. A job that holds
 * the event loop the whole time is seen when it ends: the jobs after it are optimized.
 *
 * The measure is the event loop's utilization (libuv's idle time, read without a system call),
 * not process.cpuUsage(): getrusage at every job's start was 4 % of a simulated minion's CPU per
 * job in the bench's profile, and the loop's busy share is what TurboFan would speed up.
 */
export async function optimizingWhenBusy<T>(
  job: () => Promise<T>,
  optimize: () => void = optimizeFromNow,
  checkMs = BUSY_CHECK_MS,
): Promise<T> {
  let since = performance.eventLoopUtilization();
  let done = false;
  const check = () => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, since);
    since = now;
    if (done || window.active < checkMs * BUSY_SHARE) return;
    done = true;
    clearInterval(timer);
    optimize();
  };
  const timer = setInterval(check, checkMs).unref();
  const started = Date.now();
  try {
    return await job();
  } finally {
    clearInterval(timer);
    // A job that held the loop past a check was never looked at: judge it now.
    if (Date.now() - started >= checkMs) check();
  }
}

/** The runtime's grains and their change event, for the job loop. */
export function grainsFor(runtime: PluginRuntime, pillar?: MinionPillar): MinionGrains {
  return { all: () => runtime.grains(), onChange: (listener) => runtime.onGrainsChange(listener), pillar: () => pillar?.snapshot() };
}

/** The daemon's settings: the config itself, with the resolved id and the (first) master. */
export function minionSettings(config: MinionConfig): MinionSettings {
  return { ...config, id: minionId(config), master: Array.isArray(config.master) ? String(config.master[0]) : String(config.master) };
}

/**
 * What Salt never says: why a key is usually rejected, and the fix. A master refuses a key when an
 * admin rejected it, or when the id is already accepted with another key: two machines with one id,
 * typically from a hosts file that maps the host name to 127.0.0.1.
 */
export function rejectionAdvice(config: MinionConfig, identity: MinionIdResult): string {
  const conf = join(config.config_dir, 'minion');
  const lines = [
    `This minion signs in as '${identity.id}' (${identity.detail}).`,
    `If 'salt-key -L' on the master lists '${identity.id}' under "Denied Keys", another machine already uses this id with its own key.`,
    identity.rule === 'config'
      ? `Fix: give this machine a unique id in ${conf} (id: ...), delete the denied key on the master (salt-key -d '${identity.id}'), and restart this minion.`
      : `Fix: set a unique id in ${conf} (id: ...), or correct /etc/hosts so the host name does not resolve to a loopback name; then delete ${join(config.config_dir, 'minion_id')}, delete the denied key on the master (salt-key -d '${identity.id}'), and restart this minion.`,
    ...identity.warnings,
  ];
  return lines.join('\n');
}

/**
 * Keeps V8's young generation at the size the minion reached while starting (16 MB: its modules
 * are loaded by then). V8 doubles it after enough collections with survivors, and gives it back
 * only in a collection that finds allocation idle, which an idle daemon never runs: 20,000
 * publications read and dropped (a bad master's garbage, or any burst of jobs) left a minion 16 MB
 * larger for good. Node's --max-semi-space-size would have to be given before node starts;
 * semi_space_growth_factor is read each time V8 grows the space, so setting it now holds it.
 */
export function holdYoungGeneration(): void {
  setV8Flags('--semi-space-growth-factor=1');
}

/** salt-minion's daemon: when the master rejects our key, Salt's CRITICAL line, then exit 77. */
export async function createMinion(config: MinionConfig, logging: Logging) {
  const log = logging.getLogger('salt.minion');
  const identity = await resolveId(config, logging);
  const { EXIT_REJECTED, MasterKeyMismatchError, Minion, MinionRejectedError } = await lazyModule(
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('../core/minion/job-loop.js') as typeof import('../core/minion/job-loop.js'),
    () => import('../core/minion/job-loop.js'),
  );
  // The file client asks the master through the minion's own channel, which exists only once the
  // minion does: the late binding below closes that loop.
  let minion!: Minion;
  let runtime!: PluginRuntime;
  const pillar = new MinionPillar(
    pillarSource(
      config,
      logging,
      () => runtime,
      (load) => minion.request(load),
    ),
  );
  const request = (load: Record<string, unknown>) => minion.request(load);
  runtime = await startPlugins(config, logging, new FileClient(request), pillar, new MasterLink(request));
  minion = new Minion(minionSettings(config), executorFor(runtime), grainsFor(runtime, pillar), logging.getLogger('salt.crypt'));
  const crypt = logging.getLogger('salt.crypt');
  const fatal = async (err: InstanceType<typeof MinionRejectedError> | InstanceType<typeof MasterKeyMismatchError>): Promise<never> => {
    crypt.critical(err.message);
    log.error(err instanceof MinionRejectedError ? rejectionAdvice(config, identity) : (err.hint ?? ''));
    if (err instanceof MinionRejectedError) {
      // Salt sleeps 10-20 s before exiting so a supervisor does not restart it in a tight loop.
      const wait = config.acceptance_wait_time * 1000 * (1 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
    await minion.stop();
    await logging.close();
    process.exit(err instanceof MinionRejectedError ? EXIT_REJECTED : 1);
  };
  void minion.fatal.then(fatal);
  const mine = mineInterval(config, runtime, log);
  // When refreshed grains changed, the pillar is asked for again: its request carries them to the master.
  const grainsRefresh = grainsRefresher(Number(config.grains_refresh_every), runtime, () => pillar.refresh().then(() => undefined), log);
  const pinger = masterPinger(
    config,
    () => minion.pingMaster(),
    (service) => runtime.callFunction('service.restart', [service]),
    log,
  );
  return {
    start: async () => {
      try {
        await minion.start();
      } catch (err) {
        if (err instanceof MinionRejectedError || err instanceof MasterKeyMismatchError) await fatal(err);
        throw err;
      }
      holdYoungGeneration();
      // As Salt's minion: the pillar is asked for once signed in (the master caches it then), and
      // then the mine is filled (mine_functions may come from the pillar).
      void pillar
        .refresh()
        .catch((err: Error) => log.error(`Could not get the pillar from the master: ${err.message}`))
        .then(() => mine.start());
      grainsRefresh.start();
      pinger.start();
    },
    stop: () => {
      mine.stop();
      grainsRefresh.stop();
      pinger.stop();
      return minion.stop();
    },
  };
}

/**
 * Salt's `__mine_interval` schedule: mine.update on start and every `mine_interval` minutes while
 * `mine_enabled` (mine.update itself sends nothing when no mine_functions are configured).
 */
export function mineInterval(config: MinionConfig, runtime: PluginRuntime, log: { info(m: string): void; error(m: string): void }) {
  const opts = config as unknown as Record<string, unknown>;
  let timer: NodeJS.Timeout | undefined;
  const update = () =>
    runtime.callFunction('mine.update').then(
      (sent) => sent !== null && log.info('Mine updated from mine_functions'),
      (err: Error) => log.error(`mine.update failed: ${err.message}`),
    );
  return {
    start: async () => {
      if (opts.mine_enabled === false || !runtime.hasFunction('mine.update')) return;
      await update();
      const minutes = Number(opts.mine_interval);
      if (minutes > 0) timer = setInterval(() => void update(), minutes * 60_000).unref();
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Salt's `grains_refresh_every` (minutes; 0: never): the grains computed again that often, and when
 * they changed, `onChanged` (the daemon refreshes its pillar then, as Salt's minion does, which
 * brings the new grains to the master at once rather than with the next return).
 */
export function grainsRefresher(
  minutes: number,
  runtime: Pick<PluginRuntime, 'grains' | 'refreshGrains'>,
  onChanged: () => Promise<void>,
  log: { error(m: string): void },
) {
  let timer: NodeJS.Timeout | undefined;
  const refresh = async () => {
    const before = JSON.stringify(runtime.grains());
    await runtime.refreshGrains();
    if (JSON.stringify(runtime.grains()) !== before) await onChanged();
  };
  return {
    start: () => {
      if (!(minutes > 0)) return;
      timer = setInterval(
        () => void refresh().catch((err: Error) => log.error(`Refreshing the grains failed: ${err.message}`)),
        minutes * 60_000,
      );
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}

/** Salt's service_name(): the minion's service, which auth_safemode restarts. */
const MINION_SERVICE = process.platform.includes('bsd') ? 'salt_minion' : 'salt-minion';

/**
 * Salt's `ping_interval` (minutes; 0: never): a `minion_ping` event to the master that often, as
 * Salt's minion's `ping_master`. A ping the master does not answer is let go, unless
 * `auth_safemode`: then, as Salt's minion, it restarts its own service (`service.restart
 * salt-minion`: under an init system the minion comes back and signs in afresh), and says so when
 * it cannot. Salt logs the random_reauth_delay line without waiting it, and so does this.
 */
export function masterPinger(
  config: Pick<MinionConfig, 'ping_interval' | 'auth_safemode' | 'random_reauth_delay'>,
  ping: () => Promise<void>,
  restart: (service: string) => Promise<unknown>,
  log: { error(m: string): void; info(m: string): void; warning(m: string): void },
) {
  let timer: NodeJS.Timeout | undefined;
  const pingOnce = async () => {
    try {
      await ping();
      return;
    } catch {
      if (!config.auth_safemode) return;
    }
    log.error('** Master Ping failed. Attempting to restart minion**');
    log.info(`delaying random_reauth_delay ${config.random_reauth_delay ?? 5}s`);
    try {
      await restart(MINION_SERVICE);
    } catch (err) {
      log.warning(
        'ping_interval reached without response from the master, but service.restart could not be run to restart the minion daemon. ' +
          `ping_interval requires that the minion is running under an init system. (${(err as Error).message})`,
      );
    }
  };
  return {
    start: () => {
      const minutes = Number(config.ping_interval);
      if (minutes > 0) timer = setInterval(() => void pingOnce(), minutes * 60_000).unref();
    },
    stop: () => clearInterval(timer),
  };
}

export async function printMinionId(configDir: string, logLevel = 'warning'): Promise<string> {
  const { config } = loadMinionConfig(configDir, { log_level: logLevel });
  const logging = createLogging({ level: logLevel, console: true, logFile: null });
  try {
    const text = describeIdChoice(await resolveId(config, logging, false));
    return text.endsWith('\n') ? text : `${text}\n`;
  } finally {
    await logging.close();
  }
}

/** `salt-minion` from its parsed command line (by oclif or quick-parse). */
export async function minionCommand(flags: ParsedFlags<(typeof SALT_MINION)['flags']>): Promise<void> {
  if (flags['print-id']) {
    process.stdout.write(await printMinionId(flags['config-dir'], flags['log-level']));
    return;
  }
  await startDaemon('minion', flags, (config, logging) => createMinion(config, logging));
}
