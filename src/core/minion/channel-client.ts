import { MinionStateError } from './minion-errors';
import { randomBytes, type KeyObject } from 'node:crypto';
import {
  buildAesRequest,
  buildAuthRequest,
  isSignedCommand,
  makeTok,
  openAesReply,
  openPublication,
  publicationPayload,
  openSendPrivateReply,
  signMinionMessage,
} from '../channel';
import type { MinionConfig } from '../config';
import { Crypticle } from '../crypto/crypticle';
import { DEFAULT_RSA_ALGORITHMS, type RsaAlgorithms } from '../crypto/rsa-algorithms';
import { publicKeyFromPem } from '../crypto/rsa';
import { checkPkiPermissions } from '../crypto/key-permissions';
import { join } from 'node:path';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { BrineError, CryptoError, ProtocolError, TransportError } from '../errors';
import type { JobLoad } from '../protocol/loads';
import { assertMinionId } from '../protocol/minion-id';
import { logField, RepeatedWarning, type Logger } from '../log';
import type { ConnectionOptions, IRequestClient, ISubscribeClient, Transport } from '../transport/types';
import { transportFor, zmqPorts } from '../transport/zmq-ports';
import { cpuTurn } from './cpu-turn';
import { MasterKeyMismatchError, MinionRejectedError, SignInError, decodeOrNull, rejectedError } from './minion-errors';
import { checkMasterFinger, openTrustedAuthReply } from './master-trust';
import { cacheMasterKey, ensureMinionKeys, readCachedMasterKey, type MinionKeys } from './minion-keys';
import {
  authTryTimeoutMs,
  checkSignInSettings,
  nextAcceptanceWait,
  randomDelayMs,
  resendPauseMs,
  subscribeReconnect,
  type RandomSource,
  type SignInSettings,
} from './sign-in-policy';

/**
 * The minion options the channel uses (Salt's names; paths already under root_dir): a loaded
 * minion config with its id resolved and one master is one. Those left out take Salt's defaults:
 * auth_tries 7, acceptance_wait_time_max 0, random_reauth_delay 10, recon_randomize true.
 * `master_finger` is the master key's fingerprint this minion trusts from the start.
 */
export type ChannelSettings = { id: string; master: string } & Pick<
  MinionConfig,
  'master_port' | 'pki_dir' | 'keysize' | 'acceptance_wait_time' | 'auth_timeout' | 'recon_default' | 'recon_max'
> &
  Partial<
    Pick<
      MinionConfig,
      | 'auth_tries'
      | 'acceptance_wait_time_max'
      | 'random_reauth_delay'
      | 'recon_randomize'
      | 'master_finger'
      | 'hash_type'
      | 'permissive_pki_access'
      | 'zmq_ports'
      | 'tcp_keepalive'
      | 'tcp_keepalive_idle'
      | 'sign_pub_messages'
      | 'encryption_algorithm'
      | 'signing_algorithm'
      | 'minion_sign_messages'
      | 'rejected_retry'
      | 'source_address'
      | 'source_interface_name'
      | 'source_ret_port'
      | 'source_publish_port'
      | 'ipv6'
      | 'verify_master_pubkey_sign'
      | 'always_verify_signature'
      | 'master_sign_key_name'
    >
  >;

/** Sign-ins started by unreadable publications: at most one per this many ms. */
const UNREADABLE_RESIGN_MS = 5000;
/** Unreadable publications held while such a sign-in is pending; more are dropped. */
const MAX_UNREADABLE_WAITING = 16;
/**
 * Resends of a request the master refused with "bad load", each after signing in again (see
 * send): with Salt's five workers and one holding another key, four tries fail together
 * only when every sign-in and resend pair lands on it.
 */
const BAD_LOAD_RESENDS = 3;

/** What the channel hands up for each publication it could open: the job, as the master sent it. */
export type PublicationHandler = (job: JobLoad) => Promise<void>;

/**
 * Checks a publication's signature with the master's key (null: not asked for) and opens it with
 * the publish key: `openPublication`. The scale bench's simulator gives its minions one that opens
 * each publication once for all the minions of its process (bench/shared-publication.ts).
 */
export type PublicationOpener = (payload: Buffer, aes: Crypticle, masterKey: KeyObject | null) => JobLoad;

export interface Session {
  aes: Crypticle;
  session: Crypticle;
  sessionKey: string;
  publishPort: number;
}

/**
 * Salt's source_interface_name (that interface's first address, IPv6 with `ipv6: True`) or
 * source_address: the local address the minion's connections come from, for a host with several.
 * An interface that is not there (or has no address of that family) is a warning, and the
 * connections come from wherever the system routes them, as in Salt.
 */
export function sourceAddress(
  s: Partial<Pick<MinionConfig, 'source_address' | 'source_interface_name' | 'ipv6'>>,
  log: Pick<Logger, 'warning'>,
  given?: NodeJS.Dict<NetworkInterfaceInfo[]>,
): string | undefined {
  const name = s.source_interface_name;
  if (!name) return s.source_address || undefined;
  // Only when an interface is named: listing them is about 0.1 ms a minion's sign-in.
  const interfaces = given ?? networkInterfaces();
  const family = s.ipv6 ? 'IPv6' : 'IPv4';
  const found = interfaces[name]?.find((a) => a.family === family);
  if (found) return found.address;
  log.warning(
    interfaces[name]
      ? `The interface ${name} (source_interface_name) has no ${family} address: connecting from any`
      : `The interface specified on the minion does not exist: ${name} (source_interface_name; there are ${Object.keys(interfaces).join(', ')})`,
  );
  return undefined;
}

function hostPort(host: string, port: number): string {
  return `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The minion's side of Salt's secure channel: keys, sign-in over the request port (waiting while
 * the key is pending), the session, aes requests (signing in again when the master answers "bad
 * load"), and the subscription to the publish port. A publication it cannot read because the
 * master rotated its publish key makes it sign in again and open that publication with the new
 * key; what it opens goes to the handler given to subscribe(). It knows nothing of jobs.
 */
export class MinionChannel {
  private keys!: MinionKeys;
  private masterKey?: KeyObject;
  private requests!: IRequestClient;
  private subscriber?: ISubscribeClient;
  private readonly transport: Transport;
  private session?: Session;
  private signingIn?: Promise<Session>;
  private tok!: Buffer;
  private stopped = false;
  /** salt-call's single sign-in round (see connect). */
  private once = false;
  /** Date.now() of the last successful sign-in. */
  private lastSignIn = 0;
  private readonly policy: SignInSettings;
  /** encryption_algorithm and signing_algorithm: what its requests ask the master to answer in. */
  private readonly algorithms: RsaAlgorithms;
  private readonly random: RandomSource;
  private readonly wakers = new Set<() => void>();
  private readonly running = new Set<Promise<void>>();
  private onJob?: PublicationHandler;
  private readonly autosignGrains?: () => Record<string, unknown>;
  private readonly openPublication: PublicationOpener;
  /** The local address the connections come from, once worked out. */
  private source?: { address: string | undefined };
  /** Date.now() before which an unreadable publication does not start another sign-in. */
  private nextUnreadableSignIn = 0;
  private unreadableWaiting = 0;
  /**
   * Publications dropped (unreadable, or not for us after signing in again): anyone who reaches
   * the publish port's subscribers can send them at will, so they are counted and told once a
   * minute, not a line each.
   */
  private readonly dropped: RepeatedWarning;
  private fatalBy?: (err: MinionRejectedError | MasterKeyMismatchError) => void;
  /**
   * Settles when the minion cannot go on after start: its key was rejected (the daemon exits with
   * 77) or the master presents another key.
   */
  readonly fatal = new Promise<MinionRejectedError | MasterKeyMismatchError>((resolve) => (this.fatalBy = resolve));

  constructor(
    private readonly settings: ChannelSettings,
    private readonly log: Logger,
    options: {
      random?: RandomSource;
      transport?: Transport;
      /** The values of the grains `autosign_grains` names, sent with each `_auth` (Salt's autosign by grains). */
      autosignGrains?: () => Record<string, unknown>;
      /** How a publication is checked and opened: openPublication unless given (see PublicationOpener). */
      openPublication?: PublicationOpener;
    } = {},
  ) {
    this.autosignGrains = options.autosignGrains;
    this.openPublication = options.openPublication ?? openPublication;
    // zmq_ports: what makes the connections to the master's two ports (zmq-ports.ts).
    this.transport = options.transport ?? transportFor(zmqPorts(settings.zmq_ports, 'minion'));
    // The master refuses such an id at sign-in; say so here, before the first request.
    assertMinionId(settings.id);
    this.random = options.random ?? Math.random;
    this.dropped = new RepeatedWarning(log);
    this.policy = {
      auth_timeout: settings.auth_timeout,
      auth_tries: settings.auth_tries ?? 7,
      acceptance_wait_time: settings.acceptance_wait_time,
      acceptance_wait_time_max: settings.acceptance_wait_time_max ?? 0,
      random_reauth_delay: settings.random_reauth_delay ?? 10,
    };
    checkSignInSettings(this.policy);
    this.algorithms = {
      enc: settings.encryption_algorithm ?? DEFAULT_RSA_ALGORITHMS.enc,
      sig: settings.signing_algorithm ?? DEFAULT_RSA_ALGORITHMS.sig,
    };
  }

  get id(): string {
    return this.settings.id;
  }

  /**
   * Keys, the request channel and sign-in, without subscribing (salt-call needs no more).
   * `once` is salt-call's sign-in (Salt's caller mode): one round of auth_tries requests, and a
   * master that does not answer, or a key not accepted yet, is a SignInError instead of a wait.
   */
  async connect(options: { once?: boolean } = {}): Promise<Session> {
    this.once = options.once === true;
    this.transport.raiseSocketLimit(20_000);
    const s = this.settings;
    // Loading the key and the X9.31 tok are RSA work: many minions in one process (the bench)
    // take turns, so the first sign-in goes out at once rather than after all of them.
    await cpuTurn();
    checkPkiPermissions(s.pki_dir, join(s.pki_dir, 'minion.pem'), s.permissive_pki_access === true);
    this.keys = ensureMinionKeys(s.pki_dir, s.keysize);
    this.masterKey = readCachedMasterKey(s.pki_dir)?.key;
    this.tok = makeTok(this.keys.privateKey);
    this.requests = this.transport.requestClient(hostPort(s.master, s.master_port), {
      reconnectInterval: s.recon_default,
      reconnectMax: s.recon_max,
      ...this.keepAlive,
      ...this.sourceOf(s.source_ret_port),
    });
    return this.signIn();
  }

  /**
   * Subscribes to the master's publish port and resolves once connected; each publication the
   * channel can open goes to `onJob` (jobs run concurrently; stop() waits for them).
   */
  async subscribe(onJob: PublicationHandler): Promise<void> {
    if (!this.session) throw new MinionStateError('NOT_CONNECTED', 'subscribe() before connect()');
    this.onJob = onJob;
    await this.subscribeTo(this.session.publishPort).whenConnected();
  }

  /** The publish port of the current session (for the log). */
  get publishPort(): number | undefined {
    return this.session?.publishPort;
  }

  /** An aes request with our id, and the master's decrypted answer. */
  request(load: Record<string, unknown>, timeoutMs = 60_000): Promise<unknown> {
    return this.send({ ...load, id: this.settings.id }, timeoutMs);
  }

  /** Whether stop() was called: the job loop gives up retries then. */
  get isStopped(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
    this.subscriber?.close();
    await Promise.allSettled([...this.running]);
    this.requests?.close();
  }

  /** One sign-in at a time: concurrent callers share it. */
  private signIn(): Promise<Session> {
    if (!this.signingIn) {
      this.signingIn = this.authenticate().finally(() => {
        this.signingIn = undefined;
      });
    }
    return this.signingIn;
  }

  /**
   * Salt's sign-in loop: rounds of up to auth_tries `_auth` requests (see sign-in-policy.ts);
   * after a round without an answer or a pending reply, wait acceptance_wait_time (growing up
   * to acceptance_wait_time_max) and sign in again. A rejection ends the minion.
   */
  private async authenticate(): Promise<Session> {
    const s = this.settings;
    let wait = this.policy.acceptance_wait_time;
    const waitMore = async () => {
      await this.pause(wait * 1000);
      wait = nextAcceptanceWait(wait, this.policy.acceptance_wait_time, this.policy.acceptance_wait_time_max);
    };
    for (;;) {
      const sent = await this.signInRound();
      if (sent === null && this.once) {
        throw new SignInError('SIGN_IN_TIMEOUT', 'Attempt to authenticate with the salt master failed with timeout error', 1);
      }
      if (sent === null) {
        this.log.warning(
          `Master ${s.master}:${s.master_port} answered none of ${this.policy.auth_tries} sign-in requests; signing in again in ${wait} s`,
        );
        await waitMore();
        continue;
      }
      await cpuTurn(); // opening the reply is RSA work
      let answer;
      try {
        answer = openTrustedAuthReply(sent.reply, sent.nonce, {
          pkiDir: this.settings.pki_dir,
          master: this.settings.master,
          masterPort: this.settings.master_port,
          hashType: this.settings.hash_type,
          masterKey: this.masterKey,
          minionKey: this.keys.privateKey,
          algorithms: this.algorithms,
          signedMasterKey: {
            verify: s.verify_master_pubkey_sign === true,
            always: s.always_verify_signature === true,
            keyName: s.master_sign_key_name || 'master_sign',
          },
        });
      } catch (err) {
        if (!(err instanceof ProtocolError)) throw err;
        this.log.warning(`The master answered the sign-in with something unreadable (${err.message}); retrying in ${wait} s`);
        await waitMore();
        continue;
      }
      if (answer.kind === 'rejected') {
        if (!s.rejected_retry || this.once) throw rejectedError(s.id);
        // Salt's rejected_retry: wait and ask again, for a key the master may yet delete and re-accept.
        this.log.error(
          "The Salt Master has rejected this minion's public key.\nTo repair this issue, delete the public key for this minion on the Salt Master.\nThe Salt Minion will attempt to re-authenicate.",
        );
        await waitMore();
        continue;
      }
      if (answer.kind !== 'accepted' && this.once) {
        throw new SignInError('SIGN_IN_PENDING', 'Minion failed to authenticate with the master, has the minion key been accepted?', 2);
      }
      if (answer.kind !== 'accepted') {
        this.log.error(
          `The Salt Master has cached the public key for this node, this salt minion will wait for ${wait} seconds before attempting to re-authenticate`,
        );
        this.log.info(`Waiting ${wait} seconds before retry.`);
        await waitMore();
        continue;
      }
      if (!this.masterKey) checkMasterFinger(answer.masterPublicPem, this.settings.master_finger, this.settings.hash_type);
      if (!this.masterKey || answer.vouchedMasterKey !== undefined) {
        if (answer.vouchedMasterKey !== undefined) this.log.info(`Received signed and verified master pubkey from master ${s.master}`);
        await cacheMasterKey(s.pki_dir, answer.masterPublicPem);
        this.masterKey = publicKeyFromPem(answer.masterPublicPem);
      }
      this.session = {
        aes: new Crypticle(answer.aesKey),
        session: new Crypticle(answer.sessionKey),
        sessionKey: answer.sessionKey,
        publishPort: answer.publishPort,
      };
      this.lastSignIn = Date.now();
      this.log.info('Authentication with master successful');
      // The master is back but our subscription may still be waiting out its (randomised)
      // reconnect interval: connect it now so the next job reaches us.
      if (this.subscriber && !this.subscriber.isConnected && !this.stopped) this.subscribeTo(answer.publishPort);
      return this.session;
    }
  }

  /**
   * One round: the same `_auth` sent up to auth_tries times, each try waiting longer, with a
   * random pause before each resend. Resolves with the reply, or null when no try was answered.
   */
  private async signInRound(): Promise<{ reply: Buffer; nonce: string } | null> {
    const s = this.settings;
    const { bytes, nonce } = buildAuthRequest({
      id: s.id,
      publicPem: this.keys.publicPem,
      masterPublicKey: this.masterKey,
      token: this.masterKey ? randomBytes(57).toString('base64') : undefined,
      algorithms: this.algorithms,
      autosignGrains: this.autosignGrains?.(),
    });
    for (let attempt = 1; attempt <= this.policy.auth_tries; attempt++) {
      if (this.stopped) throw new MinionStateError('STOPPED', 'the minion is stopping');
      if (attempt > 1) await this.pause(resendPauseMs(this.policy.auth_timeout, this.random));
      const timeout = authTryTimeoutMs(this.policy.auth_timeout, attempt);
      try {
        return { reply: await this.requests.request(bytes, timeout), nonce };
      } catch (err) {
        if (!(err instanceof TransportError) || this.stopped) throw err;
        // Info, not warning: Salt's request channel retries quietly, and salt-call (logging at
        // warning by default) must print only Salt's one line when the master is down.
        this.log.info(
          `Master ${s.master}:${s.master_port} did not answer the sign-in (try ${attempt} of ${this.policy.auth_tries}, ${timeout / 1000} s): ${err.message}`,
        );
      }
    }
    return null;
  }

  /**
   * Salt's tcp_keepalive and tcp_keepalive_idle, on both connections as Salt's minion sets them
   * (salt/transport/zeromq.py: PublishClient and the request clients), so NAT and firewalls do not
   * forget an idle minion.
   */
  /** Where a connection comes from: source_address (or source_interface_name's), and the port given for it. */
  private sourceOf(port: number | undefined): Pick<ConnectionOptions, 'source'> {
    this.source ??= { address: sourceAddress(this.settings, this.log) };
    const { address } = this.source;
    return address ? { source: { address, ...(port ? { port } : {}) } } : {};
  }

  private get keepAlive(): Pick<ConnectionOptions, 'keepAlive'> {
    const s = this.settings;
    return s.tcp_keepalive !== false ? { keepAlive: { idleSeconds: s.tcp_keepalive_idle ?? 300 } } : {};
  }

  /** Subscribes to the publish port (replacing an earlier subscription) and starts listening. */
  private subscribeTo(publishPort: number): ISubscribeClient {
    const s = this.settings;
    const { interval, max } = subscribeReconnect(
      { recon_default: s.recon_default, recon_max: s.recon_max, recon_randomize: s.recon_randomize ?? true },
      this.random,
    );
    this.subscriber?.close();
    const sub = this.transport.subscribeClient({
      reconnectInterval: interval,
      reconnectMax: max,
      ...this.keepAlive,
      ...this.sourceOf(s.source_publish_port),
    });
    sub.connect(hostPort(s.master, publishPort));
    sub.onReconnect((downSince) => void this.publisherBack(downSince));
    this.subscriber = sub;
    void this.listen(sub);
    return sub;
  }

  /**
   * The publish connection came back after a drop: the master most likely restarted and has a new
   * publish key. Sign in again after random_reauth_delay, so that a thousand minions do not all
   * sign in on the next job; a job that comes sooner signs in at once (onPublication).
   */
  private async publisherBack(downSince: number): Promise<void> {
    const delay = randomDelayMs(this.policy.random_reauth_delay, this.random);
    this.log.info(`The connection to the master's publisher is back: signing in again in ${delay / 1000} s`);
    await this.pause(delay);
    if (this.stopped || this.lastSignIn > downSince) return; // signed in since the drop already
    this.session = undefined;
    try {
      await this.signIn();
    } catch (err) {
      if (err instanceof MinionRejectedError || err instanceof MasterKeyMismatchError) this.fatalBy?.(err);
      else if (!this.stopped) this.log.warning(`Signing in again failed: ${(err as Error).message}`);
    }
  }

  /** A wait that stop() cuts short. */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /**
   * Sends an aes request. A "bad load" means the master could not open it with our session key:
   * our session ended (key deleted, master restarted), or a Salt master's workers hold different
   * session keys for us, which Salt 3007 does when two sign-ins of one new minion reach two
   * workers at once (each writes its own key; measured against Salt 3007.10). A worker that kept
   * the other key refuses every request it is handed, so one sign-in and resend (Salt's own
   * minion) is not enough: sign in again and resend up to BAD_LOAD_RESENDS times, each going to
   * the next worker.
   */
  private async send(load: Record<string, unknown>, timeoutMs = 60_000): Promise<unknown> {
    // minion_sign_messages: the load is signed with the ts it goes with, once; resends carry both.
    let ts: number | undefined;
    if (this.settings.minion_sign_messages && isSignedCommand(load.cmd)) {
      ts = Math.floor(Date.now() / 1000);
      load = { ...load, sig: await signMinionMessage(this.keys.privateKey, load, ts) };
    }
    for (let resend = 0; ; resend++) {
      const session = this.session ?? (await this.signIn());
      const { bytes, nonce } = buildAesRequest({
        id: this.settings.id,
        sessionKey: session.session,
        load,
        tok: this.tok,
        ts,
        algorithms: this.algorithms,
      });
      const reply = await this.requests.request(bytes, timeoutMs);
      try {
        if (load.cmd === '_pillar') return openSendPrivateReply(reply, this.keys.privateKey, this.masterKey!, nonce, this.algorithms);
        return openAesReply(reply, session.session, nonce);
      } catch (err) {
        const refused = err instanceof BrineError && (err.code === 'MASTER_BAD_LOAD' || decodeOrNull(reply) === 'bad load');
        if (!refused) throw err;
        if (resend === BAD_LOAD_RESENDS) {
          throw new ProtocolError(
            'MASTER_BAD_LOAD',
            `the master refused the ${String(load.cmd)} request ("bad load") ${resend + 1} times, signing in again before each resend`,
            {
              hint:
                "see the master's log for why; a Salt master whose workers hold different session keys for this minion " +
                '(two sign-ins of it at once) keeps refusing some of its requests until the master restarts',
            },
          );
        }
        this.log.info(`The master refused the ${String(load.cmd)} request ("bad load"): signing in again and resending`);
        this.session = undefined;
        await this.signIn();
      }
    }
  }

  private async listen(sub: ISubscribeClient): Promise<void> {
    for await (const frames of sub.messages()) {
      if (this.stopped || sub !== this.subscriber) break;
      const task = this.onPublication(frames).catch((err) => {
        if (err instanceof MinionRejectedError || err instanceof MasterKeyMismatchError) this.fatalBy?.(err);
        else {
          this.log.error(`Job handling failed: ${logField((err as Error)?.message ?? err, 500)}`);
          this.log.debug(logField((err as Error)?.stack, 4000));
        }
      });
      this.running.add(task);
      void task.finally(() => this.running.delete(task));
    }
  }

  private async onPublication(frames: Buffer[]): Promise<void> {
    let job: JobLoad;
    let payload: Buffer;
    try {
      payload = publicationPayload(frames);
    } catch (err) {
      this.drop('could not be read', err);
      return;
    }
    try {
      job = this.open(payload, this.session ?? (await this.signIn()));
    } catch (err) {
      if (!(err instanceof CryptoError) || (err.code !== 'BAD_HMAC' && err.code !== 'BAD_SIGNATURE')) {
        this.drop('could not be read', err);
        return;
      }
      // BAD_HMAC: the master rotated its publish key (a key was deleted or the master restarted).
      // BAD_SIGNATURE: another key signed it; signing in tells a re-keyed master (fatal) from noise.
      this.log.info(
        err.code === 'BAD_HMAC'
          ? 'Publication could not be decrypted: signing in again for the new key'
          : 'Publication signature does not verify with the cached master key: signing in again to check the master',
      );
      const session = await this.signInForUnreadable();
      if (session === undefined) return;
      try {
        job = this.open(payload, session);
      } catch (again) {
        this.drop('not meant for this minion', again);
        return;
      }
    }
    await this.onJob?.(job);
  }

  /**
   * A sign-in because a publication could not be read. Anyone who can reach the publish port's
   * subscribers (or a garbage-sending master) could otherwise make every frame cost a sign-in and
   * hold its bytes meanwhile: one such sign-in per UNREADABLE_RESIGN_MS, at most
   * MAX_UNREADABLE_WAITING publications waiting for it, the rest dropped (and counted).
   */
  private async signInForUnreadable(): Promise<Session | undefined> {
    if (this.unreadableWaiting >= MAX_UNREADABLE_WAITING) {
      this.drop('unreadable while a sign-in for such was pending');
      return undefined;
    }
    this.unreadableWaiting++;
    try {
      const wait = this.nextUnreadableSignIn - Date.now();
      if (wait > 0) await this.pause(wait);
      if (this.stopped) return undefined;
      // Another publication's sign-in since this one failed: open it with that session.
      if (Date.now() < this.nextUnreadableSignIn && this.session) return this.session;
      this.nextUnreadableSignIn = Date.now() + UNREADABLE_RESIGN_MS;
      this.session = undefined;
      return await this.signIn(); // a rejection here ends the minion
    } finally {
      this.unreadableWaiting--;
    }
  }

  /** Counts a dropped publication; the first, and one a minute after it, are logged with the count. */
  private drop(why: string, err?: unknown): void {
    this.dropped.note(
      (n) =>
        `Dropped ${n} publication(s) since the last report; the last was ${why}` +
        (err === undefined ? '' : `: ${logField((err as Error)?.message ?? err, 300)}`),
    );
  }

  /** A publication's job; the master's signature is checked unless `sign_pub_messages` is False. */
  private open(payload: Buffer, session: Session): JobLoad {
    return this.openPublication(payload, session.aes, this.settings.sign_pub_messages === false ? null : this.masterKey!);
  }
}
