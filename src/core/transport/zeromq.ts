/**
 * The only file that loads zeromq. It moves bytes and nothing else: no msgpack, no crypto.
 * Every zeromq error is wrapped in a TransportError at this boundary.
 */
import type * as Zmq from 'zeromq';
import { createServer } from 'node:net';
import { TransportError } from '../errors';
import { StreamEventPublisher, StreamEventPuller, StreamEventPusher, StreamEventSubscriber } from './event-socket';
import type {
  AdmitConnection,
  IPublishServer,
  IRequestClient,
  IRequestServer,
  ISubscribeClient,
  Peer,
  ReconnectOptions,
  RequestServe,
  ConnectionOptions,
  Transport,
} from './types';
import { OneAtATime } from './one-at-a-time';
import { SubscriptionState } from './subscription-state';

export type { Peer, ReconnectOptions } from './types';

let loaded: typeof Zmq | undefined;
/**
 * zeromq, loaded with the first socket made here: importing this file costs nothing, so a process
 * whose sockets are all Node's (zmq_ports: node, zmq-ports.ts) never loads libzmq, its threads or
 * its 4-5 MiB. (A `require` of the package, not `import()`: the sockets are made synchronously.)
 */
function zmq(): typeof Zmq {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('zeromq') as typeof Zmq;
  return loaded;
}

/** The version of the libzmq zeromq.js was built with ('4.3.5'); loads libzmq. */
export function libzmqVersion(): string {
  return zmq().version;
}

/** Raise the process-wide socket limit before opening many sockets (zeromq's default is 1023). */
export function raiseSocketLimit(max: number): void {
  for (const context of [zmq().context, clientContext()]) {
    if (context.maxSockets < max) context.maxSockets = Math.min(max, context.maxSocketsLimit);
  }
}

/** libzmq's context option ZMQ_ZERO_COPY_RECV (zeromq.js does not name it). */
const ZMQ_ZERO_COPY_RECV = 10;

/**
 * A context whose sockets copy each received message into a block of its own size. libzmq's
 * default (zero copy) reads into 8 kB buffers and hands out messages that point into them: a
 * buffer lives until the last of its messages is freed, and zeromq.js frees a message only when
 * V8 collects the Buffer around it, having told V8 of the message's length alone. Publications
 * that arrive one per read (a trickle of garbage from a bad master) each held a whole buffer:
 * 20,000 of them cost a minion some 35 MB of RSS that it never gave back.
 */
function copyingContext(): Zmq.Context {
  const context = new (zmq().Context)();
  // zeromq.js declares its raw option setters protected; options without a name go through them.
  (context as unknown as { setBoolOption(option: number, value: boolean): void }).setBoolOption(ZMQ_ZERO_COPY_RECV, false);
  return context;
}

let clients: Zmq.Context | undefined;
/**
 * The one context of every client socket in the process, subscribe and request (its I/O thread
 * starts on first use): a minion's two sockets share one I/O thread and one reaper, where a
 * second context cost it two more threads and their memory (0.6-0.8 MiB of its RSS, 2026-12-06).
 */
function clientContext(): Zmq.Context {
  clients ??= copyingContext();
  return clients;
}

/**
 * libzmq's connect (and the monitor behind a socket's `events`) reads the socket's command mailbox
 * first, and a signal landing meanwhile (a child process ending, a profiler's tick) fails it with
 * EINTR before anything was done: it is safe, and needed, to call it again, as pyzmq does.
 * zeromq.js retries EINTR itself for sends and receives, not for these.
 */
export function retryInterrupted<T>(call: () => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return call();
    } catch (err) {
      const { code, errno } = err as { code?: string; errno?: number };
      if ((code !== 'EINTR' && errno !== 4) || attempt >= 100) throw err;
    }
  }
}

function connectRetrying(socket: Zmq.Socket, address: string): void {
  retryInterrupted(() => socket.connect(address));
}

function wrap(what: string, err: unknown): TransportError {
  const code = (err as { code?: string })?.code;
  return new TransportError(code === 'EADDRINUSE' ? 'ADDRESS_IN_USE' : 'TRANSPORT', `${what}: ${(err as Error)?.message ?? err}`, {
    cause: err,
    hint: code === 'EADDRINUSE' ? 'another process listens on that port: stop it or choose another port' : undefined,
  });
}

/**
 * Closes, then waits until every tcp:// port it listened on is free again: close() frees the port
 * later, in zeromq's I/O thread, and a master restarted in the same process must get its port
 * back. (Not unbind() first: libzmq 4.3.5 aborts the process, "Assertion failed: _state ==
 * term_ack_sent || _state == term_req_sent2 (pipe.cpp:355)", when a listener is unbound while
 * one of its connections is closing.)
 */
async function closeAndFree(socket: Zmq.Socket, addresses: string[]): Promise<void> {
  if (socket.closed) return;
  const endpoints = addresses.splice(0);
  socket.close();
  await Promise.all(endpoints.map(whenPortFree));
}

/** Resolves once a tcp:// endpoint's port can be listened on again (at most ~5 s; other kinds at once). */
async function whenPortFree(endpoint: string): Promise<void> {
  const m = /^tcp:\/\/\[?([^\]]*?)\]?:(\d+)$/.exec(endpoint);
  if (!m) return;
  const [, host, port] = m;
  for (let attempt = 0; attempt < 500; attempt++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen({ host: host === '*' ? undefined : host, port: Number(port), exclusive: true }, () => probe.close(() => resolve(true)));
    });
    if (free) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * sendTimeout for sockets whose sends never wait (PUB and XPUB drop at their high-water mark, a
 * ROUTER drops a reply to a peer that is gone): 0 makes zeromq.js send at once instead of first
 * asking libzmq whether the socket is writable (a ZMQ_EVENTS query, which processes libzmq's
 * command mailbox), half of what a reply cost on a master with a thousand connections.
 */
const NEVER_WAITS = 0;

/**
 * Salt's zmq_backlog default: the listen queue of the publish and request ports. libzmq's own
 * default (100) overflows when thousands of minions connect at once (the kernel then answers with
 * SYN cookies and the connections are late).
 */
const DEFAULT_BACKLOG = 1000;

/**
 * The read and write buffer of each connection on the ports every minion connects to (libzmq's
 * ZMQ_IN_BATCH_SIZE and ZMQ_OUT_BATCH_SIZE, draft options the bundled libzmq has). libzmq's 8 KiB
 * suit a few connections carrying streams of messages; a minion's connection carries one request
 * or publication at a time, under 1 KiB (a larger one is read and written whole all the same).
 * Measured with 2,000 connections and nothing but ZeroMQ: 226 MiB with the default, 204 MiB with
 * 1 KiB, about 11 KiB a connection (110 MiB at 10,000 minions on the request port alone).
 */
const PER_CONNECTION_BATCH = 1024;
const ZMQ_IN_BATCH_SIZE = 101;
const ZMQ_OUT_BATCH_SIZE = 102;

function setConnectionBatch(socket: Zmq.Socket, bytes: number): void {
  // zeromq.js declares its raw option setters protected; options without a name go through them.
  const raw = socket as unknown as { setInt32Option(option: number, value: number): void };
  raw.setInt32Option(ZMQ_IN_BATCH_SIZE, bytes);
  raw.setInt32Option(ZMQ_OUT_BATCH_SIZE, bytes);
}

/** Serialises sends on one socket: zeromq allows one pending send per socket at a time. */
class SendQueue {
  private tail: Promise<void> = Promise.resolve();
  constructor(private readonly socket: Zmq.Writable) {}
  send(frames: Buffer[]): Promise<void> {
    const next = this.tail.then(() => this.socket.send(frames));
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * Sends on a socket with sendTimeout 0 (NEVER_WAITS): zeromq.js then sends at once, inside the
 * call, and a send is never pending when the next one starts, so there is nothing to serialise.
 * Skipping SendQueue's promise chain saves two promises and a microtask turn per message (each
 * reply on the request port, each event on the bus).
 */
class ImmediateSender {
  constructor(private readonly socket: Zmq.Writable) {}
  send(frames: Buffer[]): Promise<void> {
    try {
      return this.socket.send(frames);
    } catch (err) {
      // A closed socket throws inside the call: its callers expect a rejection, as from SendQueue.
      return Promise.reject(err as Error);
    }
  }
}

/** The master's publish port: a PUB socket that sends one message to every subscriber. */
export class PublishServer implements IPublishServer {
  private readonly socket: Zmq.Publisher;
  private readonly queue: ImmediateSender;
  private readonly bound: string[] = [];

  constructor(options: { highWaterMark?: number; backlog?: number } = {}) {
    this.socket = new (zmq().Publisher)({
      linger: 0,
      sendHighWaterMark: options.highWaterMark ?? 1000,
      sendTimeout: NEVER_WAITS,
      backlog: options.backlog ?? DEFAULT_BACKLOG,
    });
    setConnectionBatch(this.socket, PER_CONNECTION_BATCH);
    this.queue = new ImmediateSender(this.socket);
  }

  async bind(address: string): Promise<void> {
    try {
      await this.socket.bind(address);
    } catch (err) {
      throw wrap(`cannot listen for subscribers on ${address}`, err);
    }
    this.bound.push(this.socket.lastEndpoint ?? address);
  }

  publish(frames: Buffer[]): Promise<void> {
    return this.queue.send(frames);
  }

  /** Closes the socket; the promise resolves once the port is free again. */
  close(): Promise<void> {
    return closeAndFree(this.socket, this.bound);
  }
}

/** libzmq's way to connect from a local address: `tcp://SOURCE:PORT;HOST:PORT` (zmq_tcp(7)). */
function fromSource(address: string, source: ConnectionOptions['source']): string {
  if (!source || !address.startsWith('tcp://')) return address;
  const host = source.address.includes(':') ? `[${source.address}]` : source.address;
  return `tcp://${host}:${source.port ?? 0};${address.slice('tcp://'.length)}`;
}

/** Salt's tcp_keepalive as libzmq's socket options (-1: the system's idle time). */
function keepAliveOptions({ keepAlive }: ConnectionOptions): { tcpKeepalive?: number; tcpKeepaliveIdle?: number } {
  return keepAlive ? { tcpKeepalive: 1, tcpKeepaliveIdle: keepAlive.idleSeconds > 0 ? keepAlive.idleSeconds : -1 } : {};
}

/** A minion's view of the publish port: SUB to every topic, reconnecting on its own. */
export class SubscribeClient implements ISubscribeClient {
  private readonly socket: Zmq.Subscriber;
  private readonly state = new SubscriptionState();

  /** source_address: where the subscription connects from. */
  private readonly source: ConnectionOptions['source'];

  constructor(options: ConnectionOptions = {}) {
    this.source = options.source;
    this.socket = new (zmq().Subscriber)({
      context: clientContext(),
      linger: 0,
      reconnectInterval: options.reconnectInterval ?? 1000,
      reconnectMaxInterval: options.reconnectMax ?? 0,
      // zeromq's default, which Salt's minion keeps: a master (or anyone on its publish port)
      // sending faster than the minion reads fills at most this many messages here; the rest
      // wait in TCP and the publisher's own queue, which drops beyond its high-water mark.
      receiveHighWaterMark: 1000,
      ...keepAliveOptions(options),
    });
    this.socket.subscribe();
    void this.watch();
  }

  connect(address: string): void {
    try {
      connectRetrying(this.socket, fromSource(address, this.source));
    } catch (err) {
      throw wrap(`cannot connect to ${address}`, err);
    }
  }

  /** Resolves once the ZMTP handshake with the publisher is done (and so the subscription is sent). */
  whenConnected(): Promise<void> {
    return this.state.whenConnected();
  }

  /** Whether the ZMTP session with the publisher is up right now. */
  get isConnected(): boolean {
    return this.state.isConnected;
  }

  /**
   * Called each time the session comes back after it dropped (the publisher restarted or the
   * network failed), not on the first connection, with the time (Date.now()) it dropped.
   */
  onReconnect(listener: (downSince: number) => void): void {
    this.state.onReconnect(listener);
  }

  async *messages(): AsyncGenerator<Buffer[]> {
    try {
      for await (const frames of this.socket) yield frames;
    } catch (err) {
      if (!this.socket.closed) throw wrap('subscription failed', err);
    }
  }

  close(): void {
    this.socket.close();
  }

  private async watch(): Promise<void> {
    try {
      // An observer that failed to start would leave this subscriber never "connected".
      for await (const event of retryInterrupted(() => this.socket.events)) {
        if (event.type === 'handshake') this.state.up();
        else if (event.type === 'disconnect') this.state.down();
      }
    } catch {
      // The observer ends when the socket closes.
    }
  }
}

/**
 * The master's request port: ROUTER. Requests are handled concurrently (a slow RSA operation for
 * one minion does not hold up the others); replies go back to the peer that asked. Messages that
 * do not have REQ's shape (routing id, empty delimiter, one payload) are dropped.
 *
 * With `admit`, every new connection is put to it with the peer's IP address before any request
 * is read. ZeroMQ gives a message no source address, only its connection; the one place it tells
 * the address is ZAP (RFC 27): a socket with a `zapDomain` asks the handler bound at
 * `inproc://zeromq.zap.01` in its context about each handshake, with the address. So the ROUTER
 * gets a context of its own (one ZAP handler per context, one per master in a process) and a
 * REP socket there answers "200" or "400". A refused peer's handshake fails and libzmq does not
 * retry that connection: its request times out, and it tries again on a new socket.
 */
export class RequestServer implements IRequestServer {
  private readonly socket: Zmq.Router;
  private readonly zap?: ZapHandler;
  private readonly queue: ImmediateSender;
  private loop?: Promise<void>;
  private readonly bound: string[] = [];

  constructor(options: { admit?: AdmitConnection; backlog?: number } = {}) {
    const context = options.admit ? new (zmq().Context)() : zmq().context;
    if (options.admit) this.zap = new ZapHandler(context, options.admit);
    this.socket = new (zmq().Router)({
      context,
      linger: 0,
      receiveHighWaterMark: 0,
      sendHighWaterMark: 0,
      sendTimeout: NEVER_WAITS,
      backlog: options.backlog ?? DEFAULT_BACKLOG,
      ...(options.admit ? { zapDomain: 'brine' } : {}),
    });
    setConnectionBatch(this.socket, PER_CONNECTION_BATCH);
    this.queue = new ImmediateSender(this.socket);
  }

  async bind(address: string): Promise<void> {
    try {
      // The handler first: a handshake that finds no handler is let through unasked.
      await this.zap?.start();
      await this.socket.bind(address);
    } catch (err) {
      throw wrap(`cannot listen for requests on ${address}`, err);
    }
    this.bound.push(this.socket.lastEndpoint ?? address);
  }

  serve(handler: RequestServe, onError: (err: unknown) => void): void {
    this.loop = (async () => {
      try {
        let handled = 0;
        for await (const frames of this.socket) {
          // A queue of thousands (a sign-in storm) is read in one go otherwise: every
          // YIELD_EVERY requests, timers and other sockets get their turn (the replies of the
          // RSA, a publish, the event bus).
          if (++handled % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
          if (frames.length !== 3 || frames[1].length !== 0) continue;
          const [peer, , payload] = frames;
          handler(payload, peer)
            .then((reply) => (reply === null ? undefined : this.queue.send([peer, Buffer.alloc(0), reply])), onError)
            .catch(onError);
        }
      } catch (err) {
        if (!this.socket.closed) onError(wrap('request port failed', err));
      }
    })();
  }

  async close(): Promise<void> {
    await closeAndFree(this.socket, this.bound);
    await this.loop;
    await this.zap?.close();
  }
}

/** How many requests the request port reads before it lets the rest of the event loop run. */
const YIELD_EVERY = 32;

/** ZAP's well-known address: libzmq asks whatever REP socket is bound there in the same context. */
const ZAP_ENDPOINT = 'inproc://zeromq.zap.01';

/**
 * A ZAP handler (RFC 27) that decides on the peer's address only. Request frames: version,
 * request id, domain, address, identity, mechanism, credentials...; reply: version, request id,
 * status code, status text, user id, metadata.
 */
class ZapHandler {
  private readonly socket: Zmq.Reply;
  private loop?: Promise<void>;

  constructor(
    context: Zmq.Context,
    private readonly admit: AdmitConnection,
  ) {
    this.socket = new (zmq().Reply)({ context, linger: 0 });
  }

  async start(): Promise<void> {
    if (this.loop) return;
    await this.socket.bind(ZAP_ENDPOINT);
    this.loop = (async () => {
      try {
        for await (const [version, requestId, , address] of this.socket) {
          let ok = false;
          try {
            ok = this.admit(address?.toString('latin1') ?? '');
          } catch {
            // A failing decision refuses: the peer tries again later.
          }
          await this.socket.send([version ?? '1.0', requestId ?? '', ok ? '200' : '400', ok ? 'OK' : 'refused', '', '']);
        }
      } catch {
        // Ends when the socket closes.
      }
    })();
  }

  async close(): Promise<void> {
    this.socket.close();
    await this.loop;
  }
}

/**
 * A REQ client with a queue: one request in flight at a time, as REQ requires. A request that
 * times out leaves a REQ socket unusable, so the socket is replaced.
 */
export class RequestClient implements IRequestClient {
  private socket: Zmq.Request;
  private readonly queue = new OneAtATime();
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly options: ConnectionOptions = {},
  ) {
    this.socket = this.open();
  }

  /** Sends one payload and resolves with the reply payload, or rejects after timeoutMs. */
  request(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    return this.queue.run(() => this.exchange(payload, timeoutMs));
  }

  close(): void {
    this.closed = true;
    this.socket.close();
  }

  private open(): Zmq.Request {
    const socket = new (zmq().Request)({
      context: clientContext(),
      linger: 0,
      reconnectInterval: this.options.reconnectInterval ?? 1000,
      reconnectMaxInterval: this.options.reconnectMax ?? 0,
      ...keepAliveOptions(this.options),
    });
    try {
      connectRetrying(socket, fromSource(this.address, this.options.source));
    } catch (err) {
      socket.close();
      throw wrap(`cannot connect to ${this.address}`, err);
    }
    return socket;
  }

  private async exchange(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    if (this.closed) throw new TransportError('CLOSED', `the connection to ${this.address} is closed`);
    const socket = this.socket;
    socket.sendTimeout = timeoutMs;
    socket.receiveTimeout = timeoutMs;
    try {
      // REQ adds the empty delimiter frame itself and strips it from the reply.
      await socket.send(payload);
      const frames = await socket.receive();
      return frames[frames.length - 1];
    } catch (err) {
      socket.close();
      if (!this.closed) this.socket = this.open();
      if ((err as { code?: string }).code === 'EAGAIN') {
        throw new TransportError('TIMEOUT', `no reply from ${this.address} within ${timeoutMs} ms`, { cause: err });
      }
      throw wrap(`request to ${this.address} failed`, err);
    }
  }
}

/**
 * The transport the daemons and the CLI use: ZeroMQ for the ports minions connect to, and Unix
 * stream sockets for the master's local event bus and intake, as Salt 3007 has them
 * (event-socket.ts).
 */
export const zeromqTransport: Transport = {
  publishServer: (options) => new PublishServer(options),
  subscribeClient: (options) => new SubscribeClient(options),
  requestServer: (options) => new RequestServer(options),
  requestClient: (address, options) => new RequestClient(address, options),
  eventPublisher: () => new StreamEventPublisher(),
  eventSubscriber: (address, prefixes) => new StreamEventSubscriber(address, prefixes),
  eventPuller: () => new StreamEventPuller(),
  eventPusher: (address) => new StreamEventPusher(address),
  raiseSocketLimit,
};
