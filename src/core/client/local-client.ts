import { ClientError } from './client-errors';
import { userInfo } from 'node:os';
import { BrineError } from '../errors';
import { buildClearRequest } from '../channel/clear';
import { isObj, parseClearReplyEnvelope, parsePublishReply, type PublishReply } from '../protocol/loads';
import { decode } from '../protocol/msgpack';
import { clientTransport, type ClientTransport } from '../transport/client-transport';
import type { IEventSubscriber, IRequestClient } from '../transport/types';
import { eventBusAddress } from '../master/events';
import { readRootKey } from '../master/root-key';

/** Where the master is, for a client on the same host (the salt CLI, salt-run). */
export interface MasterAddress {
  /** The master's interface; 0.0.0.0 and :: are reached on loopback. */
  interface: string;
  ret_port: number;
  cachedir: string;
  sock_dir: string;
}

export interface PublishRequest {
  tgt: string | string[];
  tgtType: string;
  fun: string;
  arg: unknown[];
  ret?: string;
  delimiter?: string;
  user?: string;
  /** `salt --metadata`: a value the master stores with the job and the minions send back in their returns. */
  metadata?: unknown;
}

export interface MinionReturn {
  id: string;
  jid: string;
  fun?: string;
  return: unknown;
  retcode: number;
  success: boolean;
  out?: string;
}

export interface Publication {
  jid: string;
  /** The minions the master expects to answer. */
  minions: string[];
  /**
   * brine's master adds the expected minions it holds no session for (not signed in since the
   * master started, or key deleted/rejected since); a Salt master leaves it out.
   */
  notConnected: string[];
}

/** Why a minion is reported without a return (Salt's two reasons). */
export type NoReturnReason = 'No response' | 'Not connected';

/** What the wait of one job yields: a return, then once the end with the minions that never answered. */
export type JobEvent =
  { kind: 'return'; ret: MinionReturn } | { kind: 'done'; jid: string; missing: Array<{ id: string; reason: NoReturnReason }> };

export interface WaitOptions {
  /** Salt's `timeout`: how long to wait before asking the missing minions with saltutil.find_job. */
  timeoutMs: number;
  /** Salt's `gather_job_timeout`: how long to wait for the find_job answers. */
  gatherMs: number;
}

function loopback(iface: string): string {
  if (iface === '0.0.0.0' || iface === '') return '127.0.0.1';
  if (iface === '::') return '[::1]';
  return iface.includes(':') ? `[${iface}]` : iface;
}

function asNumber(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/**
 * What Salt calls the LocalClient: publishes a job through the master's request port with the
 * root key and listens on the master's event bus for the returns. It subscribes (and proves the
 * subscription is live) before publishing, so no return can slip past.
 */
export class LocalClient {
  private readonly events: IEventSubscriber;
  private readonly requests: IRequestClient;
  private readonly key: string;

  private constructor(
    private readonly master: MasterAddress,
    transport: ClientTransport,
  ) {
    this.key = readRootKey(master.cachedir);
    this.events = transport.eventSubscriber(eventBusAddress(master.sock_dir), ['salt/job/']);
    this.requests = transport.requestClient(`tcp://${loopback(master.interface)}:${master.ret_port}`);
  }

  /** `transport`: clientTransport unless given (unit tests use the in-memory one). */
  static async connect(master: MasterAddress, options: { transport?: ClientTransport } = {}): Promise<LocalClient> {
    const client = new LocalClient(master, options.transport ?? clientTransport);
    try {
      await client.events.sync(5000);
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  /** Publishes a job; resolves with its jid and expected minions, or throws when none matched. */
  async publish(req: PublishRequest): Promise<Publication> {
    const load = {
      cmd: 'publish',
      tgt: req.tgt,
      fun: req.fun,
      arg: req.arg,
      key: this.key,
      tgt_type: req.tgtType,
      ret: req.ret ?? '',
      jid: '',
      kwargs: {
        show_timeout: true,
        show_jid: false,
        delimiter: req.delimiter ?? ':',
        ...(req.metadata === undefined ? {} : { metadata: req.metadata }),
      },
      user: req.user ?? safeUser(),
    };
    let replyBytes: Buffer;
    try {
      replyBytes = await this.requests.request(buildClearRequest(load), 10_000);
    } catch (err) {
      throw new ClientError('MASTER_UNREACHABLE', `the master did not answer on port ${this.master.ret_port}`, {
        cause: err,
        hint: 'is salt-master running with this configuration? (-c CONFIG_DIR)',
      });
    }
    return publicationFromReply(replyBytes);
  }

  /**
   * Yields the returns of one job as they arrive, until every expected minion has answered or
   * timeoutMs passes without all of them.
   */
  async *returns(pub: Publication, timeoutMs: number): AsyncGenerator<MinionReturn> {
    const waiting = new Set(pub.minions);
    const deadline = Date.now() + timeoutMs;
    const prefix = `salt/job/${pub.jid}/ret/`;
    while (waiting.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      const event = await this.events.next(left);
      if (!event) return;
      if (!event.tag.startsWith(prefix)) continue;
      const ret = returnFromEvent(pub.jid, event.tag.slice(prefix.length), event.body);
      waiting.delete(ret.id);
      yield ret;
    }
  }

  /** The next event of the bus (salt/job/ tags only), or null after timeoutMs. */
  nextEvent(timeoutMs: number): Promise<{ tag: string; body: Buffer } | null> {
    return this.events.next(timeoutMs);
  }

  close(): void {
    this.events.close();
    this.requests.close();
  }
}

/**
 * The publication a master's publish reply announces, or the error it stands for: `NO_MINIONS`
 * (no jid and nobody expected: Salt's client decides on the minions, never on the text, in
 * salt/client/__init__.py `_check_pub_data`), `PUBLISH_REFUSED` (a refusal, or a bare string
 * such as Salt's `bad load`), `BAD_REPLY` (bytes that are no publish reply).
 */
export function publicationFromReply(bytes: Buffer): Publication {
  const out = readPublishReply(bytes);
  if (out.jid === undefined) throw new ClientError('PUBLISH_REFUSED', out.error);
  if (out.jid === null) {
    if (out.minions.length === 0) throw new ClientError('NO_MINIONS', out.error);
    throw new ClientError('PUBLISH_REFUSED', out.error);
  }
  return { jid: out.jid, minions: out.minions, notConnected: out.not_connected ?? [] };
}

/** A clear envelope around Salt's publish reply, checked by the protocol's parsers. */
function readPublishReply(bytes: Buffer): PublishReply {
  let decoded: unknown;
  try {
    decoded = decode(bytes);
  } catch (err) {
    throw new ClientError('BAD_REPLY', 'the master answered the publish request with bytes that are not msgpack', { cause: err });
  }
  if (typeof decoded === 'string') throw new ClientError('PUBLISH_REFUSED', `the master refused the job: ${decoded}`);
  try {
    // An authentication or authorization failure comes bare, `{error: {name, message}}`, as Salt's
    // ClearFuncs.publish returns it; everything else in a clear envelope.
    if (isObj(decoded) && !('enc' in decoded) && 'error' in decoded) return parsePublishReply(decoded);
    return parsePublishReply(parseClearReplyEnvelope(decoded).load);
  } catch (err) {
    throw new ClientError('BAD_REPLY', `the master's publish reply is not usable: ${(err as Error).message}`, { cause: err });
  }
}

/** A `salt/job/<jid>/ret/<id>` event's data as a MinionReturn. */
export function returnFromEvent(jid: string, idFromTag: string, body: Buffer): MinionReturn {
  let data: Record<string, unknown> = {};
  try {
    const decoded = decode(body);
    if (decoded && typeof decoded === 'object' && !Array.isArray(decoded)) data = decoded as Record<string, unknown>;
  } catch {
    // A return event that is not msgpack still tells who answered; its data is lost.
  }
  return {
    id: typeof data.id === 'string' ? data.id : idFromTag,
    jid,
    fun: typeof data.fun === 'string' ? data.fun : undefined,
    return: data.return,
    retcode: asNumber(data.retcode, 0),
    success: data.success !== false,
    out: typeof data.out === 'string' ? data.out : undefined,
  };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}
