import { availableParallelism } from 'node:os';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MasterConfig } from '../config';
import { ConfigError, TransportError, withHint } from '../errors';
import { describeProcess, pidListeningOn } from '../process-owner';
import { privateKeyFromPem, publicPemOf } from '../crypto/rsa';
import { checkPkiPermissions } from '../crypto/key-permissions';
import type { Logger } from '../log';
import type { IPublishServer, IRequestServer, Transport } from '../transport/types';
import { ProcessPublishServer } from '../transport/publish-process';
import { transportFor, zmqPorts } from '../transport/zmq-ports';
import { AuthService } from './auth';
import { AutosignGrainsDir, SigningFile } from './signing-file';
import { MasterEvents } from './events';
import { JobService } from './jobs';
import {
  openJobCache,
  retentionSeconds,
  ReturnBatcher,
  startJobCacheCleaner,
  type JobCache,
  type JobCacheCleaner,
  type JobCacheConfig,
} from './job-cache';
import { KeyIndex, type KeyChanges } from './key-index';
import { KeyStore } from './key-store';
import { MinionDataCache } from './minion-data-cache';
import { MasterPillar, type PillarPlugins } from './pillar-service';
import { MineStore } from './mine-store';
import { MinionRequests } from './minion-requests';
import { PublishKey } from './publish-key';
import { PublisherBlacklist } from './publisher-acl';
import { ReturnSignatures } from './return-signatures';
import { connectedMinions, PresenceWatch } from './presence';
import { DEFAULT_MAX_REQUEST_SIZE, RequestHandler, refuseOversized } from './request-handler';
import { ReplayGuard } from './replay-guard';
import {
  ConnectionRateLimit,
  DEFAULT_AUTH_RATE_LIMIT,
  DEFAULT_CONNECTION_RATE_LIMIT,
  DEFAULT_MAX_PENDING_KEYS,
  PendingKeyCap,
  SignInRateLimit,
} from './sign-in-limits';
import { SignInQueue } from './sign-in-queue';
import { masterRsa, threadPoolKeyOps } from './master-rsa';
import { pubkeySignature } from './pubkey-signature';
import { writeRootKey } from './root-key';
import { Sessions } from './sessions';

/**
 * The master options the daemon uses (Salt's names; paths already under root_dir): a loaded
 * master config is one. `worker_threads` is Salt's request workers; here the request port is one
 * event loop and the part that runs in parallel is the RSA of sign-ins (on libuv's thread pool),
 * so it sets how many sign-ins are in progress at once (four per thread) and how many token
 * decryptions can run together (never above the number of cores, where more threads only
 * contend). `publish_session`: seconds a minion keeps one session key across its sign-ins
 * (Salt's default 86400). `loop_interval`
 * (seconds, default 60): how often old jobs are cleaned. `max_request_size`: requests longer than
 * this many bytes get "bad load" before decoding; `max_pending_keys`: new ids beyond this many
 * pending keys are answered "pending" without a key file; `auth_rate_limit`: `_auth` requests
 * allowed per connection per second; `connection_rate_limit`: new request-port connections per
 * address per second, 0 for no limit (docs/security.md). `hash_type`: the digest of `_file_hash`. `file_roots` feeds the file server; the
 * job cache options are {@link JobCacheConfig}'s, and `job_cache: false` stores no returns (as Salt).
 */
export type MasterSettings = Pick<
  MasterConfig,
  | 'interface'
  | 'publish_port'
  | 'ret_port'
  | 'pki_dir'
  | 'cachedir'
  | 'sock_dir'
  | 'keysize'
  | 'auto_accept'
  | 'autosign_file'
  | 'autoreject_file'
  | 'autosign_grains_dir'
  | 'open_mode'
  | 'pub_hwm'
  | 'nodegroups'
  | 'file_roots'
> &
  Partial<
    Pick<
      MasterConfig,
      | 'worker_threads'
      | 'publish_session'
      | 'rotate_aes_key'
      | 'ping_on_rotate'
      | 'presence_events'
      | 'loop_interval'
      | 'file_buffer_size'
      | 'hash_type'
      | 'max_request_size'
      | 'max_pending_keys'
      | 'auth_rate_limit'
      | 'connection_rate_limit'
      | 'request_server_ttl'
      | 'permissive_pki_access'
      | 'job_cache'
      | 'sign_pub_messages'
      | 'publish_signing_algorithm'
      | 'publisher_acl_blacklist'
      | 'require_minion_sign_messages'
      | 'drop_messages_signature_fail'
      | 'master_sign_pubkey'
      | 'master_sign_key_name'
      | 'master_use_pubkey_signature'
      | 'master_pubkey_signature'
    >
  > &
  JobCacheConfig & {
    /** Salt's zmq_backlog (default 1000); the config loader keeps it as given. */
    zmq_backlog?: unknown;
  };

/** loop_interval in ms for the job cache cleaner; a bad value is a configuration error. */
function loopIntervalMs(value: unknown): number {
  if (value === undefined || value === null) return 60_000;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError('BAD_CONFIG', `loop_interval must be a number of seconds > 0, got ${JSON.stringify(value)}`, {
      hint: "fix or remove 'loop_interval' in the master config",
    });
  }
  return Math.max(1, Math.round(value * 1000));
}

/** A limit option: a positive whole number, or the default when unset. */
function positiveOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError('BAD_CONFIG', `${name} must be a whole number > 0, got ${JSON.stringify(value)}`, {
      hint: `fix or remove '${name}' in the master config`,
    });
  }
  return value;
}

/** connection_rate_limit: on by default; 0 turns it off (many minions behind one address). */
function connectionRate(value: unknown, log: Logger): ConnectionRateLimit | undefined {
  if (value === 0) return undefined;
  return new ConnectionRateLimit(positiveOption('connection_rate_limit', value, DEFAULT_CONNECTION_RATE_LIMIT), log);
}

/** request_server_ttl: brine checks by default (300 s); 0 turns the check off as in Salt. */
function requestTtl(value: unknown): number {
  if (value === 0) return 0;
  return positiveOption('request_server_ttl', value, 300);
}

function tcp(iface: string, port: number): string {
  return `tcp://${iface.includes(':') ? `[${iface}]` : iface}:${port}`;
}

/**
 * salt-master: the publish port (PUB), the request port (ROUTER), the local event bus, and the
 * key store. Keys changed by salt-key (another process) are noticed through a directory watch;
 * a deleted or rejected key ends that minion's session and rotates the publish key.
 */
export class Master {
  readonly keys: KeyStore;
  private readonly transport: Transport;
  private readonly publisher: IPublishServer;
  private readonly requests: IRequestServer;
  /** max_request_size, checked once: the port and the handler refuse larger requests. */
  private readonly maxRequestSize: number;
  private readonly events: MasterEvents;
  private readonly sessions: Sessions;
  private publishKey!: PublishKey;
  private rootKey = '';
  /** The key directories in memory, kept current by a watch and a stat before each publish. */
  private readonly keyIndex: KeyIndex;
  private dataCache?: MinionDataCache;
  private jobCache?: JobCache;
  private returns?: ReturnBatcher;
  private cleaner?: JobCacheCleaner;
  private jobs?: JobService;
  /** When the publish key was made (Date.now()). */
  private publishKeySince = 0;
  /** Salt's Maintenance loop: key rotation by publish_session, presence events. */
  private maintenance?: NodeJS.Timeout;
  /** What the daemon's plugins add to pillar compiles (ext_pillar packages, salt[...] in pillar templates). */
  private readonly pillarPlugins?: PillarPlugins;
  private readonly openJobCache: (settings: MasterSettings) => Promise<JobCache>;

  /**
   * `transport`: ZeroMQ unless given (unit tests run the master over the in-memory one).
   * `publisher`: the publish port in a process of its own (the default over ZeroMQ, as Salt runs
   * it: see publish-process.ts), or in this one (the default over a given transport).
   */
  constructor(
    private readonly settings: MasterSettings,
    private readonly log: Logger,
    options: {
      transport?: Transport;
      publisher?: 'process' | 'in-process';
      pillarPlugins?: PillarPlugins;
      /** Opens the job cache (the daemon's: built-in or a returner's); default the built-in caches only. */
      openJobCache?: (settings: MasterSettings) => Promise<JobCache>;
    } = {},
  ) {
    this.pillarPlugins = options.pillarPlugins;
    this.openJobCache = options.openJobCache ?? openJobCache;
    // zmq_ports: what serves the two ports every minion connects to (zmq-ports.ts).
    const ports = zmqPorts(settings.zmq_ports, 'master');
    this.transport = options.transport ?? transportFor(ports);
    this.keys = new KeyStore({ pkiDir: settings.pki_dir });
    this.keyIndex = new KeyIndex(this.keys, (changes) => this.onKeyChanges(changes));
    // zmq_backlog (Salt's, default 1000): the listen queue of both ports, for connection storms.
    const backlog = positiveOption('zmq_backlog', settings.zmq_backlog, 1000);
    const ownProcess = (options.publisher ?? (options.transport ? 'in-process' : 'process')) === 'process';
    this.publisher = ownProcess
      ? new ProcessPublishServer({ highWaterMark: settings.pub_hwm, backlog, ports, onError: (err) => this.portTrouble(err) })
      : this.transport.publishServer({ highWaterMark: settings.pub_hwm, backlog });
    const connections = connectionRate(settings.connection_rate_limit, log);
    // max_request_size: a larger request is refused by the port before it is held, where it can.
    this.maxRequestSize = positiveOption('max_request_size', settings.max_request_size, DEFAULT_MAX_REQUEST_SIZE);
    this.requests = this.transport.requestServer({
      backlog,
      maxRequestBytes: this.maxRequestSize,
      oversized: (bytes) => refuseOversized(log, bytes, this.maxRequestSize),
      ...(connections ? { admit: (address) => connections.allow(address) } : {}),
    });
    this.events = new MasterEvents(this.transport);
    this.sessions = new Sessions({
      publishSession: settings.publish_session,
      dir: join(settings.cachedir, 'sessions'),
      acceptedPem: (id) => this.keys.acceptedPem(id),
    });
  }

  async start(): Promise<void> {
    this.transport.raiseSocketLimit(20_000);
    const s = this.settings;
    // Checked before the ports are taken: a bad value ends the start with one line.
    const cores = availableParallelism();
    const rsaThreads = Math.min(positiveOption('worker_threads', s.worker_threads, cores), cores);
    // The ports first: a second master on the same ports must fail before it rewrites the root
    // key or the event bus socket that the running one uses.
    await this.listen(this.publisher, s.interface, s.publish_port, 'publish_port');
    await this.listen(this.requests, s.interface, s.ret_port, 'ret_port');
    checkPkiPermissions(s.pki_dir, join(s.pki_dir, 'master.pem'), s.permissive_pki_access === true);
    for (const dir of [s.cachedir, s.sock_dir]) mkdirSync(dir, { recursive: true });
    // Job returns, grains and mine data live here: readable by the master's user only.
    chmodSync(s.cachedir, 0o700);
    const masterKeys = this.keys.ensureMasterKeys(s.keysize);
    // Sessions sealed under another master key must not outlive it: minions have to sign in
    // again and meet the new key (and refuse it, if they pinned the old one).
    if (masterKeys.created) rmSync(join(s.cachedir, 'sessions'), { recursive: true, force: true });
    const masterKey = privateKeyFromPem(masterKeys.privatePem);
    // The private-key work of sign-ins and _pillar runs on libuv's thread pool, so publishing and
    // returns never wait on it.
    const rsa = masterRsa(await threadPoolKeyOps(masterKey, rsaThreads));
    this.publishKey = new PublishKey(masterKey);
    this.publishKeySince = Date.now();
    this.rootKey = writeRootKey(s.cachedir);
    const dataCache = (this.dataCache = new MinionDataCache(s.cachedir));
    const jobCache = (this.jobCache = await this.openJobCache(s));
    const returns = (this.returns = new ReturnBatcher(jobCache));
    this.cleaner = startJobCacheCleaner(jobCache, {
      keepSeconds: retentionSeconds(s),
      intervalMs: loopIntervalMs(s.loop_interval),
      onError: (err) => this.log.error(`Cleaning the job cache failed: ${(err as Error).message}`),
      onSweep: (n) => n > 0 && this.log.info(`Removed ${n} jobs older than keep_jobs from the job cache`),
    });

    const { sessions, events, publishKey, log } = this;
    const auth = new AuthService({
      keys: this.keys,
      masterKey,
      rsa,
      publishKey,
      sessions,
      events,
      log,
      // A key accepted here and deleted before the next reconcile must still end its session.
      onAccepted: (id) => this.keyIndex.noteAccepted(id),
      pubkeySignature: pubkeySignature(s, publicPemOf(masterKey), log),
      policy: {
        autoAccept: s.auto_accept,
        autosign: new SigningFile(s.autosign_file || undefined, 'autosign_file', log, s.permissive_pki_access ?? false),
        autoreject: new SigningFile(s.autoreject_file || undefined, 'autoreject_file', log, s.permissive_pki_access ?? false),
        autosignGrains: new AutosignGrainsDir(s.autosign_grains_dir || undefined, log, s.permissive_pki_access ?? false),
        openMode: s.open_mode,
        publishPort: s.publish_port,
        pendingCap: new PendingKeyCap(positiveOption('max_pending_keys', s.max_pending_keys, DEFAULT_MAX_PENDING_KEYS), log),
      },
    });
    const jobs = (this.jobs = new JobService({
      accepted: () => this.keyIndex.accepted,
      dataCache,
      masterKey,
      publishKey,
      publisher: this.publisher,
      events,
      nodegroups: s.nodegroups,
      cache: { jobs: jobCache, returns },
      log,
      hasSession: (id) => sessions.connected(id),
      storeReturns: s.job_cache !== false,
      signPublications: s.sign_pub_messages,
      signingAlgorithm: s.publish_signing_algorithm,
    }));
    const handler = new RequestHandler({
      auth,
      jobs,
      sessions,
      dataCache,
      events,
      rsa,
      log,
      hooks: { rootKey: () => this.rootKey, beforePublish: () => this.keyIndex.refresh() },
      publisherBlacklist: s.publisher_acl_blacklist ? new PublisherBlacklist(s.publisher_acl_blacklist) : undefined,
      pillar: new MasterPillar(s as unknown as Record<string, unknown>, dataCache, this.log, this.pillarPlugins),
      minionRequests: new MinionRequests({
        files: { file_roots: s.file_roots, file_buffer_size: s.file_buffer_size, hash_type: s.hash_type },
        mine: new MineStore(s.cachedir),
        accepted: () => this.keyIndex.accepted,
        grains: (id) => dataCache.grains(id),
        options: s,
        log,
      }),
      limits: {
        maxRequestSize: this.maxRequestSize,
        signIns: new SignInRateLimit(positiveOption('auth_rate_limit', s.auth_rate_limit, DEFAULT_AUTH_RATE_LIMIT)),
        replays: new ReplayGuard(requestTtl(s.request_server_ttl)),
      },
      // Enough sign-ins in progress to keep every RSA thread busy with more ready behind it.
      signInQueue: new SignInQueue(4 * rsaThreads),
      returnSignatures: new ReturnSignatures(
        { require: s.require_minion_sign_messages ?? false, dropFailed: s.drop_messages_signature_fail ?? false },
        log,
      ),
    });

    await this.events.open(s.sock_dir);
    this.keyIndex.load();
    this.keyIndex.watch((dir, err) => this.log.warning(`Cannot watch ${dir}: ${err.message}`));
    this.requests.serve(
      (payload, peer, connected) => handler.handle(payload, peer, connected),
      (err) =>
        err instanceof TransportError
          ? this.portTrouble(err) // the port's own (connections it cannot take), not a request's
          : this.log.error(`Request handling failed: ${(err as Error)?.stack ?? err}`),
    );
    // Salt's Maintenance loop, every loop_interval: handle_key_rotate (the publish key is replaced
    // every publish_session seconds, 0: never) and handle_presence (presence_events).
    const sessionMs = typeof s.publish_session === 'number' && s.publish_session > 0 ? s.publish_session * 1000 : 0;
    const presence = s.presence_events
      ? new PresenceWatch(
          () => connectedMinions(s.publish_port, this.keyIndex.accepted, (id) => dataCache.grains(id)),
          (tag, data) => this.events.fire(tag, data),
        )
      : undefined;
    if (sessionMs > 0 || presence) {
      this.maintenance = setInterval(() => {
        if (sessionMs > 0 && Date.now() - this.publishKeySince >= sessionMs) this.rotatePublishKey('its publish_session is over');
        presence?.check();
      }, loopIntervalMs(s.loop_interval));
      this.maintenance.unref();
    }
    this.log.info(`Starting the Salt Publisher on ${tcp(s.interface, s.publish_port)}`);
    this.log.info(`Setting up the master communication server on ${tcp(s.interface, s.ret_port)}`);
  }

  /** A port's trouble: near the open files limit is a warning, anything else an error. */
  private portTrouble(err: TransportError): void {
    if (err.code === 'OPEN_FILES') this.log.warning(withHint(err));
    else this.log.error(withHint(err));
  }

  /** Binds one port; a port in use is one error naming the process that holds it. */
  private async listen(server: { bind(address: string): Promise<void> }, iface: string, port: number, option: string): Promise<void> {
    try {
      await server.bind(tcp(iface, port));
    } catch (err) {
      if (!(err instanceof TransportError) || err.code !== 'ADDRESS_IN_USE') throw err;
      const pid = pidListeningOn(port);
      const holder = pid === undefined ? 'another process' : `pid ${pid} (${describeProcess(pid)})`;
      // One line, hint included: it is all a user (or `-d`) sees.
      throw new TransportError(
        'ADDRESS_IN_USE',
        `cannot listen on ${tcp(iface, port)}: the port is held by ${holder}; stop it, or set ${option} in the master config`,
        { cause: err },
      );
    }
  }

  /** Every event the master fires on its bus, in this process (see MasterEvents.subscribe). */
  onEvent(listener: (tag: string, data: Record<string, unknown>) => void): () => void {
    return this.events.subscribe(listener);
  }

  /** The job cache, once started (the master's returners write to it and share its connection). */
  get cache(): JobCache | undefined {
    return this.jobCache;
  }

  async stop(): Promise<void> {
    clearInterval(this.maintenance);
    this.keyIndex.close();
    await this.requests.close();
    await this.publisher.close();
    await this.events.close();
    await this.dataCache?.flush();
    this.cleaner?.stop();
    await this.returns?.drain();
    await this.jobCache?.close();
  }

  /**
   * Keys changed on disk (salt-key, another process): Salt's salt/key events, and a key no longer
   * accepted ends that minion's session and rotates the publish key, so that the next job is
   * sealed with a key the removed minion never gets.
   */
  private onKeyChanges({ events, unaccepted }: KeyChanges): void {
    for (const ev of events) this.events.fire('salt/key', { ...ev });
    for (const id of unaccepted) {
      this.sessions.end(id);
      // As Salt without preserve_minion_cache: a removed minion's grains go too.
      this.dataCache?.remove(id);
      this.log.info(`Key for ${id} is no longer accepted: session ended`);
    }
    if (unaccepted.length === 0) return;
    if (this.settings.rotate_aes_key === false) {
      // Salt's rotate_aes_key: False spares the fleet a sign-in storm at each removed key, and
      // leaves the removed minions reading publications until the next rotation.
      this.log.warning(
        `rotate_aes_key is False: the publish key is kept, so ${unaccepted.join(', ')} can still read publications ` +
          'until it is replaced (publish_session, or a master restart)',
      );
      return;
    }
    this.rotatePublishKey(`the key of ${unaccepted.join(', ')} is no longer accepted`);
  }

  /**
   * A new publish key: the next job is sealed with it, and every minion signs in again to read
   * it. Salt's event `key` `{rotate_aes_key: True}` goes on the bus; with ping_on_rotate a
   * test.ping to every minion makes them sign in now rather than at the next job (Salt's
   * ping_all_connected_minions).
   */
  private rotatePublishKey(why: string): void {
    this.publishKey.rotate();
    this.publishKeySince = Date.now();
    this.log.info(`Rotating AES key: ${why}`);
    this.events.fire('key', { rotate_aes_key: true });
    if (this.settings.ping_on_rotate !== true || !this.jobs) return;
    this.log.debug('Pinging all connected minions due to key rotation');
    this.jobs
      .publish({
        cmd: 'publish',
        tgt: '*',
        tgt_type: 'glob',
        fun: 'test.ping',
        arg: [],
        key: this.rootKey,
        ret: '',
        jid: '',
        kwargs: {},
        user: 'root',
      })
      .catch((err: Error) => this.log.warning(`ping_on_rotate: the ping could not be published: ${err.message}`));
  }
}
