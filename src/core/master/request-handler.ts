import { BAD_LOAD_REPLY, buildAesReply, openAesEnvelope, type OpenedAesRequest } from '../channel';
import type { AesRequestEnvelope } from '../protocol/envelopes';
import type { Crypticle } from '../crypto/crypticle';
import { BrineError, CryptoError } from '../errors';
import { decode, encode } from '../protocol/msgpack';
import {
  parseAuthRequest,
  parseMinionEventLoad,
  parsePillarRequestLoad,
  parsePublishRequestLoad,
  parseRequestEnvelope,
  parseReturnLoad,
  type MinionEventLoad,
} from '../protocol/loads';
import { logField, type Logger } from '../log';
import { isValidMinionId, minionIdProblem } from '../protocol/minion-id';
import type { AuthService } from './auth';
import type { MasterEvents } from './events';
import type { JobService } from './jobs';
import type { MinionDataCache } from './minion-data-cache';
import type { MasterPillar } from './pillar-service';
import type { MinionSession, Sessions } from './sessions';
import { requestedHashes, type MasterRsa } from './master-rsa';
import type { SignInRateLimit } from './sign-in-limits';
import type { PublisherBlacklist } from './publisher-acl';
import type { ReplayGuard } from './replay-guard';
import type { SignInQueue } from './sign-in-queue';
import type { MinionRequests } from './minion-requests';
import { ReturnSignatures } from './return-signatures';

/** Bounds on what one request may cost (see docs/security.md). */
export interface RequestLimits {
  /** max_request_size: requests longer than this many bytes are refused before decoding. */
  maxRequestSize: number;
  /** auth_rate_limit: `_auth` requests per connection per second; more get "bad load". */
  signIns?: SignInRateLimit;
  /** request_server_ttl: stale or replayed aes requests get "bad load". */
  replays?: ReplayGuard;
}

/** 64 MiB: far above any sign-in or ping, room for a large `_return`. */
export const DEFAULT_MAX_REQUEST_SIZE = 64 * 1024 * 1024;

/**
 * The answer to a request over max_request_size, logged: "bad load". The master's Node port
 * asks for it without holding the request (its bytes are let go of as they come); the handler
 * below, for a request a transport handed on whole.
 */
export function refuseOversized(log: Logger, bytes: number, maxRequestSize: number): Buffer {
  log.warning(`Dropped a request of ${bytes} bytes, more than max_request_size (${maxRequestSize})`);
  return BAD_LOAD_REPLY;
}

/** What {@link RequestHandler} works with. */
export interface RequestHandlerDeps {
  auth: AuthService;
  jobs: JobService;
  sessions: Sessions;
  dataCache: MinionDataCache;
  events: MasterEvents;
  rsa: MasterRsa;
  /** The root key a CLI publish must carry; reconciling keys before each publish. */
  hooks: { rootKey: () => string; beforePublish: () => void };
  /** Salt's publisher_acl_blacklist (none when absent). */
  publisherBlacklist?: PublisherBlacklist;
  /** Salt's AESFuncs beyond returns, events and pillar (file server, mine, ...). */
  minionRequests: MinionRequests;
  /** Compiles the pillar a `_pillar` request asks for. */
  pillar: MasterPillar;
  log: Logger;
  /** Default: max_request_size 64 MiB, no sign-in rate limit. */
  limits?: RequestLimits;
  /** Sign-ins a few at a time (see SignInQueue); default: each as it comes. */
  signInQueue?: SignInQueue;
  /** Signed returns (minion_sign_messages); default: Salt's, a signature checked when there is one and logged when it fails. */
  returnSignatures?: ReturnSignatures;
}

/**
 * Every message on the request port comes through here. Nothing a peer sends can stop the master:
 * oversized, undecodable, forged or replayed requests get Salt's "bad load" and a log line (every
 * field the peer chose escaped and cut), whatever failed, and the master goes on serving the others.
 */
export class RequestHandler {
  private readonly auth: AuthService;
  private readonly jobs: JobService;
  private readonly sessions: Sessions;
  private readonly dataCache: MinionDataCache;
  private readonly events: MasterEvents;
  private readonly rsa: MasterRsa;
  private readonly hooks: RequestHandlerDeps['hooks'];
  private readonly publisherBlacklist?: PublisherBlacklist;
  private readonly minionRequests: MinionRequests;
  private readonly pillar: MasterPillar;
  private readonly log: Logger;
  private readonly limits: RequestLimits;
  private readonly signInQueue?: SignInQueue;
  private readonly returnSignatures: ReturnSignatures;

  constructor(deps: RequestHandlerDeps) {
    ({
      auth: this.auth,
      jobs: this.jobs,
      sessions: this.sessions,
      dataCache: this.dataCache,
      events: this.events,
      rsa: this.rsa,
      hooks: this.hooks,
      publisherBlacklist: this.publisherBlacklist,
      minionRequests: this.minionRequests,
      pillar: this.pillar,
      log: this.log,
    } = deps);
    this.limits = deps.limits ?? { maxRequestSize: DEFAULT_MAX_REQUEST_SIZE };
    this.signInQueue = deps.signInQueue;
    this.returnSignatures = deps.returnSignatures ?? new ReturnSignatures({ require: false, dropFailed: false }, this.log);
  }

  /**
   * `peer` is the connection the request came on (ZeroMQ's routing id), for rate limits;
   * `connected` whether it is still open, where the transport can tell. Null: no reply (a sign-in
   * the minion has given up, see SignInQueue).
   */
  async handle(payload: Buffer, peer?: Buffer, connected?: () => boolean): Promise<Buffer | null> {
    // Before decoding: an oversized request costs its length check, nothing more.
    if (payload.length > this.limits.maxRequestSize) return refuseOversized(this.log, payload.length, this.limits.maxRequestSize);
    try {
      const envelope = parseRequestEnvelope(decode(payload));
      if (envelope.enc === 'clear') return await this.clear(envelope.load, peer, connected);
      return await this.aes(envelope);
    } catch (err) {
      // Whatever failed, the peer gets an answer: a BrineError is a bad request, anything else a
      // bug of ours that this request found (logged as an error, with the stack at debug level).
      if (err instanceof BrineError) {
        this.log.warning(`Bad request: ${logField(err.message, 500)}`);
      } else {
        this.log.error(`Request handling failed, answered "bad load": ${logField((err as Error)?.message ?? err, 500)}`);
        this.log.debug(logField((err as Error)?.stack, 4000));
      }
      return BAD_LOAD_REPLY;
    }
  }

  private async clear(load: Record<string, unknown>, peer: Buffer | undefined, connected?: () => boolean): Promise<Buffer | null> {
    switch (load.cmd) {
      case '_auth': {
        if (this.limits.signIns && !this.limits.signIns.allow(peer)) {
          this.log.warning(
            `Sign-in refused: more than auth_rate_limit (${this.limits.signIns.perSecond}) _auth requests per second on one connection`,
          );
          return BAD_LOAD_REPLY;
        }
        const req = parseAuthRequest(load);
        if (!this.signInQueue) return await this.auth.handle(req);
        return await this.signInQueue.run(req.id, () => this.auth.handle(req), connected);
      }
      case 'publish': {
        const req = parsePublishRequestLoad(load);
        // Checked first, as Salt's ClearFuncs.publish does, and answered bare as the refusal below.
        if (this.publisherBlacklist?.refuses(String(req.user), req.fun)) {
          this.log.error(
            `${String(req.user)} does not have permissions to run ${String(req.fun)}. ` +
              'Please contact your local administrator if you believe this is in error.',
          );
          return encode({ error: { name: 'AuthorizationError', message: 'Authorization error occurred.' } });
        }
        if (req.key !== this.hooks.rootKey()) {
          this.log.warning(`Authentication failure of type "user" occurred for user ${String(req.user)}.`);
          // Bare, with no {enc, load} around it: Salt's ClearFuncs.publish returns it as is, and
          // Salt's client reads `error` at the top (salt/client/__init__.py pub).
          return encode({ error: { name: 'AuthenticationError', message: 'Authentication error occurred.' } });
        }
        this.hooks.beforePublish();
        return encode({ enc: 'clear', load: await this.jobs.publish(req) });
      }
      case 'ping':
        // Salt's ClearFuncs.ping: the load back to the sender (status.ping_master asks it).
        return encode({ enc: 'clear', load });
      default:
        this.log.warning(`Clear request with unknown command ${logField(load.cmd)} refused`);
        return BAD_LOAD_REPLY;
    }
  }

  private async aes(envelope: AesRequestEnvelope): Promise<Buffer> {
    const id = envelope.id;
    if (!isValidMinionId(id)) {
      this.log.warning(`Refused an aes request: ${logField(minionIdProblem(id))}`);
      return BAD_LOAD_REPLY;
    }
    const session = this.sessions.get(id);
    if (!session) {
      this.log.warning(
        `Salt minion claiming to be ${logField(id)} attempted to communicate with master, but key could not be read and verification was denied.`,
      );
      return BAD_LOAD_REPLY;
    }
    // The opener checks the HMAC, that the load's id is the envelope's, and the tok against the
    // minion's key (verified once with RSA, then compared as bytes).
    const { load, nonce, crypticle, plain } = this.openWithSessionKey(session, envelope);
    // Kept as text of its own: the decoder's copy is a slice of Node's 8 KiB buffer pool, and one
    // such slice per session held a whole slab each (78 MiB at 10,000 minions).
    session.tok ??= load.tok.toString('latin1');
    const replay = this.limits.replays?.check(session.id, nonce, load.ts);
    if (replay !== undefined) {
      this.log.warning(`Refused a ${logField(load.cmd, 40)} request from ${session.id}: ${replay}`);
      return BAD_LOAD_REPLY;
    }
    switch (load.cmd) {
      case '_return': {
        const ret = parseReturnLoad(load);
        // Salt's AESFuncs._return answers a return it drops False.
        if (!this.returnSignatures.accepts(session.id, session.publicPem, ret, plain)) return buildAesReply(crypticle, nonce, false);
        await this.jobs.onReturn(session.id, ret);
        return buildAesReply(crypticle, nonce, null);
      }
      case '_minion_event': {
        const ev = parseMinionEventLoad(load);
        this.fireMinionEvent(session.id, ev);
        return buildAesReply(crypticle, nonce, null);
      }
      case '_pillar': {
        const req = parsePillarRequestLoad(load);
        // Compiled for the session's minion (whose key signed the request), sealed to its key alone.
        const pillar = await this.pillar.compile(session.id, req);
        // The send_private signature runs on libuv's thread pool, off the publishing thread.
        // K goes to it by the OAEP and the master signs by the hashes its request names (Salt's _encrypt_private).
        const hashes = requestedHashes(envelope.enc_algo, envelope.sig_algo, `_pillar from ${session.id}`);
        return (await this.rsa.run({ op: 'sendPrivate', minionPublicPem: session.publicPem, nonce, pillar, ...hashes })).reply;
      }
      default:
        // The file server, master options and mine, as Salt's AESFuncs; anything else gets
        // Salt's answer to a method it does not expose (`{}`), which a Salt minion understands.
        if (!this.minionRequests.answers(String(load.cmd))) {
          this.log.warning(`Requested method not exposed: ${logField(load.cmd)} (from ${id}), answered {}`);
        }
        return buildAesReply(crypticle, nonce, this.minionRequests.answer(session.id, load));
    }
  }

  /**
   * Opens the request with the minion's session key, or with the key that session replaced while
   * it is still in its grace period (a request sealed just before the minion signed in again).
   * The reply goes back under the key the request came with.
   */
  private openWithSessionKey(session: MinionSession, envelope: AesRequestEnvelope): OpenedAesRequest & { crypticle: Crypticle } {
    const open = (crypticle: Crypticle) => ({
      ...openAesEnvelope(envelope, () => ({ sessionKey: crypticle, tok: session.tok, publicKey: session.publicPem })),
      crypticle,
    });
    try {
      return open(session.crypticle);
    } catch (err) {
      const previous = err instanceof CryptoError && err.code === 'BAD_HMAC' ? this.sessions.previousKey(session) : undefined;
      if (!previous) throw err;
      return open(previous);
    }
  }

  /**
   * As Salt's master does: a single event is fired with the whole load as its data (`{cmd, id,
   * tag, data, pretag}`, without the request's tok, nonce and ts); a batch fires each event dict.
   */
  private fireMinionEvent(id: string, ev: MinionEventLoad): void {
    if (ev.events) {
      for (const e of ev.events) {
        if (!e || typeof e !== 'object' || typeof (e as { tag?: unknown }).tag !== 'string') continue;
        const tag = (e as { tag: string }).tag;
        if (this.mayFire(id, tag)) this.events.fire(tag, { ...(e as Record<string, unknown>), id });
      }
      return;
    }
    if (typeof ev.tag !== 'string' || !this.mayFire(id, ev.tag)) return;
    const { tok: _tok, nonce: _nonce, ts: _ts, ...load } = ev;
    this.events.fire(ev.tag, { ...load, id });
  }

  /**
   * A minion speaks only for itself under `salt/job/`: `salt/job/<jid>/<ret|prog>/<its id>...`.
   * Otherwise one minion could add an untargeted return to another's job in the CLI's output.
   */
  private mayFire(id: string, tag: string): boolean {
    if (!tag.startsWith('salt/job/')) return true;
    if (tag.split('/')[4] === id) return true;
    this.log.warning(`Dropped event ${logField(tag, 120)} from ${id}: job events must carry the sender's own id`);
    return false;
  }
}
