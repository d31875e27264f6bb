import { BAD_LOAD_REPLY, buildAesReply, openAesRequest, type OpenedAesRequest } from '../channel';
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
import type { Logger } from '../log';
import type { AuthService } from './auth';
import type { MasterEvents } from './events';
import type { JobService } from './jobs';
import type { MinionDataCache } from './minion-data-cache';
import type { MinionSession, Sessions } from './sessions';
import type { MasterRsa } from './rsa-pool';
import { fileList, serveFile, type FileServerOptions } from './file-server';

/**
 * Every message on the request port comes through here. Nothing a peer sends can stop the master:
 * undecodable, forged or replayed requests get Salt's "bad load" and a log line, and the master
 * goes on serving the others.
 */
export class RequestHandler {
  constructor(
    private readonly auth: AuthService,
    private readonly jobs: JobService,
    private readonly sessions: Sessions,
    private readonly dataCache: MinionDataCache,
    private readonly events: MasterEvents,
    private readonly rsa: MasterRsa,
    private readonly hooks: { rootKey: () => string; beforePublish: () => void },
    private readonly files: FileServerOptions,
    private readonly log: Logger,
  ) {}

  async handle(payload: Buffer): Promise<Buffer> {
    let envelope;
    try {
      envelope = parseRequestEnvelope(decode(payload));
    } catch (err) {
      this.log.warning(`Dropped a request that is not a Salt message: ${(err as Error).message}`);
      return BAD_LOAD_REPLY;
    }
    try {
      if (envelope.enc === 'clear') return await this.clear(envelope.load);
      return await this.aes(envelope.id, payload);
    } catch (err) {
      if (err instanceof BrineError) {
        this.log.warning(`Bad request: ${err.message}`);
        return BAD_LOAD_REPLY;
      }
      throw err;
    }
  }

  private async clear(load: Record<string, unknown>): Promise<Buffer> {
    switch (load.cmd) {
      case '_auth':
        return await this.auth.handle(parseAuthRequest(load));
      case 'publish': {
        const req = parsePublishRequestLoad(load);
        if (req.key !== this.hooks.rootKey()) {
          this.log.warning(`Authentication failure of type "user" occurred for user ${String(req.user)}.`);
          return encode({ enc: 'clear', load: { error: { name: 'AuthenticationError', message: 'Authentication error occurred.' } } });
        }
        this.hooks.beforePublish();
        return encode({ enc: 'clear', load: await this.jobs.publish(req) });
      }
      default:
        this.log.warning(`Clear request with unknown command ${JSON.stringify(load.cmd)} refused`);
        return BAD_LOAD_REPLY;
    }
  }

  private async aes(id: string, payload: Buffer): Promise<Buffer> {
    const session = this.sessions.get(id);
    if (!session) {
      this.log.warning(
        `Salt minion claiming to be ${id} attempted to communicate with master, but key could not be read and verification was denied.`,
      );
      return BAD_LOAD_REPLY;
    }
    // The opener checks the HMAC, that the load's id is the envelope's, and the tok against the
    // minion's key (verified once with RSA, then compared as bytes).
    const { load, nonce, crypticle } = this.openWithSessionKey(session, payload);
    session.tok ??= load.tok;
    switch (load.cmd) {
      case '_return':
        await this.jobs.onReturn(session.id, parseReturnLoad(load));
        return buildAesReply(crypticle, nonce, null);
      case '_minion_event': {
        const ev = parseMinionEventLoad(load);
        this.fireMinionEvent(session.id, ev);
        return buildAesReply(crypticle, nonce, null);
      }
      case '_file_list':
        return buildAesReply(crypticle, nonce, fileList(this.files, load));
      case '_serve_file':
        return buildAesReply(crypticle, nonce, serveFile(this.files, load));
      case '_pillar': {
        const req = parsePillarRequestLoad(load);
        this.dataCache.update(session.id, { grains: req.grains });
        // The send_private signature runs on the RSA pool, off the publishing thread.
        const pem = session.publicKey.export({ type: 'spki', format: 'pem' }).toString();
        return (await this.rsa.run({ op: 'sendPrivate', minionPublicPem: pem, nonce, pillar: {} })).reply;
      }
      default:
        this.log.warning(`Request from ${id} with unknown command ${JSON.stringify(load.cmd)} refused`);
        return BAD_LOAD_REPLY;
    }
  }

  /**
   * Opens the request with the minion's session key, or with the key that session replaced while
   * it is still in its grace period (a request sealed just before the minion signed in again).
   * The reply goes back under the key the request came with.
   */
  private openWithSessionKey(session: MinionSession, payload: Buffer): OpenedAesRequest & { crypticle: Crypticle } {
    const open = (crypticle: Crypticle) => ({
      ...openAesRequest(payload, () => ({ sessionKey: crypticle, tok: session.tok, publicKey: session.publicKey })),
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
        this.events.fire((e as { tag: string }).tag, { ...(e as Record<string, unknown>), id });
      }
      return;
    }
    if (typeof ev.tag !== 'string') return;
    const { tok: _tok, nonce: _nonce, ts: _ts, ...load } = ev;
    this.events.fire(ev.tag, { ...load, id });
  }
}
