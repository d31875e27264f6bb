/**
 * An in-process transport with ZeroMQ's behaviour where the layers above rely on it: a subscriber
 * or a request sent before the other side binds waits for it; a subscriber whose publisher goes
 * away and comes back (a restarted master) is told through onReconnect; a request without an
 * answer times out with `TransportError TIMEOUT`; frames are copied, never shared. One
 * `MemoryTransport` is one network: addresses are names in it. For unit tests of the master, the
 * minion and the client without sockets.
 */
import { randomBytes } from 'node:crypto';
import { TransportError } from '../errors';
import type {
  AdmitConnection,
  IEventPublisher,
  IEventPuller,
  IEventPusher,
  IEventSubscriber,
  IPublishServer,
  IRequestClient,
  IRequestServer,
  ISubscribeClient,
  Peer,
  ReconnectOptions,
  RequestServe,
  Transport,
} from './types';
import { OneAtATime } from './one-at-a-time';
import { Inbox } from './inbox';
import { SubscriptionState } from './subscription-state';

/** The address every in-memory client connects from, as the request server's `admit` sees it. */
export const MEMORY_PEER_ADDRESS = 'memory';

const copy = (frames: Buffer[]): Buffer[] => frames.map((f) => Buffer.from(f));

/** Waiters for an address to be bound. */
class Binds<T> {
  readonly bound = new Map<string, T>();
  private readonly waiting = new Map<string, Set<(server: T) => void>>();

  bind(address: string, server: T, what: string): void {
    if (this.bound.has(address)) {
      throw new TransportError('ADDRESS_IN_USE', `cannot ${what} on ${address}: address in use`, { hint: 'choose another address' });
    }
    this.bound.set(address, server);
    const waiters = this.waiting.get(address);
    this.waiting.delete(address);
    for (const w of waiters ?? []) w(server);
  }

  unbind(address: string, server: T): void {
    if (this.bound.get(address) === server) this.bound.delete(address);
  }

  /** Calls `then` with the server bound at address, now or once one binds; returns a cancel function. */
  whenBound(address: string, then: (server: T) => void): () => void {
    const now = this.bound.get(address);
    if (now !== undefined) {
      then(now);
      return () => undefined;
    }
    const set = this.waiting.get(address) ?? new Set();
    this.waiting.set(address, set);
    set.add(then);
    return () => set.delete(then);
  }
}

class MemoryPublishServer implements IPublishServer {
  private address?: string;
  readonly subscribers = new Set<MemorySubscribeClient>();

  constructor(private readonly net: MemoryTransport) {}

  async bind(address: string): Promise<void> {
    this.net.publishers.bind(address, this, 'listen for subscribers');
    this.address = address;
  }

  async publish(frames: Buffer[]): Promise<void> {
    for (const sub of this.subscribers) sub.deliver(copy(frames));
  }

  async close(): Promise<void> {
    if (this.address === undefined) return;
    this.net.publishers.unbind(this.address, this);
    this.address = undefined;
    for (const sub of [...this.subscribers]) sub.dropped();
    this.subscribers.clear();
  }
}

class MemorySubscribeClient implements ISubscribeClient {
  private address?: string;
  private closed = false;
  private cancel?: () => void;
  private readonly inbox = new Inbox<Buffer[]>();
  private readonly state = new SubscriptionState();

  constructor(private readonly net: MemoryTransport) {}

  connect(address: string): void {
    this.address = address;
    this.attach();
  }

  whenConnected(): Promise<void> {
    return this.state.whenConnected();
  }

  get isConnected(): boolean {
    return this.state.isConnected;
  }

  onReconnect(listener: (downSince: number) => void): void {
    this.state.onReconnect(listener);
  }

  async *messages(): AsyncGenerator<Buffer[]> {
    for (;;) {
      const frames = await this.inbox.take();
      if (frames === null) return;
      yield frames;
    }
  }

  close(): void {
    this.closed = true;
    this.cancel?.();
    this.state.down();
    this.inbox.end();
  }

  deliver(frames: Buffer[]): void {
    if (this.state.isConnected) this.inbox.push(frames);
  }

  /** The publisher went away: wait for the next one at the same address. */
  dropped(): void {
    this.state.down();
    this.attach();
  }

  private attach(): void {
    if (this.closed || this.address === undefined) return;
    const address = this.address;
    this.cancel = this.net.publishers.whenBound(address, (publisher) => {
      // The handshake takes a turn of the event loop, as a real connection does.
      setImmediate(() => {
        if (this.closed) return;
        if (this.net.publishers.bound.get(address) !== publisher) return this.attach(); // gone meanwhile
        publisher.subscribers.add(this);
        this.state.up();
      });
    });
  }
}

class MemoryRequestServer implements IRequestServer {
  private address?: string;
  private handler?: RequestServe;
  private onError: (err: unknown) => void = () => undefined;
  private readonly backlog: Array<() => void> = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The clients (connections) admitted so far, by peer. */
  private readonly admitted = new Set<string>();
  closed = false;

  constructor(
    private readonly net: MemoryTransport,
    private readonly admit?: AdmitConnection,
  ) {}

  async bind(address: string): Promise<void> {
    this.net.requestServers.bind(address, this, 'listen for requests');
    this.address = address;
  }

  serve(handler: RequestServe, onError: (err: unknown) => void): void {
    this.handler = handler;
    this.onError = onError;
    for (const run of this.backlog.splice(0)) run();
  }

  /** One request from a client; `reply` gets the answer (never called when there is none). */
  receive(payload: Buffer, peer: Peer, reply: (bytes: Buffer) => void): void {
    // As over ZeroMQ: a client's first request opens its connection, which admit may refuse; a
    // refused connection is dead, its request never answered (the client times out and opens a
    // new one).
    const key = peer.toString('hex');
    if (this.admit && !this.admitted.has(key)) {
      if (!this.admit(MEMORY_PEER_ADDRESS)) return;
      this.admitted.add(key);
    }
    const run = () => {
      const task = this.handler!(Buffer.from(payload), peer).then(
        (answer) => {
          if (answer !== null && !this.closed) reply(Buffer.from(answer));
        },
        (err) => this.onError(err),
      );
      this.inFlight.add(task);
      void task.finally(() => this.inFlight.delete(task));
    };
    if (this.handler) run();
    else this.backlog.push(run);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.address !== undefined) this.net.requestServers.unbind(this.address, this);
    this.address = undefined;
    await Promise.allSettled([...this.inFlight]);
  }
}

class MemoryRequestClient implements IRequestClient {
  private readonly queue = new OneAtATime();
  private closed = false;
  /** The connection; a new one after a timeout, as the ZeroMQ client replaces its socket. */
  private peer: Peer = randomBytes(5);

  constructor(
    private readonly net: MemoryTransport,
    private readonly address: string,
  ) {}

  request(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    return this.queue.run(() => this.exchange(Buffer.from(payload), timeoutMs));
  }

  close(): void {
    this.closed = true;
  }

  private exchange(payload: Buffer, timeoutMs: number): Promise<Buffer> {
    if (this.closed) return Promise.reject(new TransportError('CLOSED', `the connection to ${this.address} is closed`));
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        cancel();
        this.peer = randomBytes(5);
        reject(new TransportError('TIMEOUT', `no reply from ${this.address} within ${timeoutMs} ms`));
      }, timeoutMs);
      // As REQ does: the request waits for a server to bind, then goes to it.
      const cancel = this.net.requestServers.whenBound(this.address, (server) => {
        server.receive(payload, this.peer, (reply) => {
          if (done || this.closed) return;
          done = true;
          clearTimeout(timer);
          resolve(reply);
        });
      });
    });
  }
}

class MemoryEventPublisher implements IEventPublisher {
  private address?: string;
  readonly subscribers = new Set<MemoryEventSubscriber>();

  constructor(private readonly net: MemoryTransport) {}

  async bind(address: string): Promise<void> {
    this.net.eventBuses.bind(address, this, 'open the event bus');
    this.address = address;
  }

  async publish(tag: string, body: Buffer): Promise<void> {
    for (const sub of this.subscribers) sub.deliver(tag, Buffer.from(body));
  }

  wants(tag: string): boolean {
    for (const sub of this.subscribers) if (sub.listensTo(tag)) return true;
    return false;
  }

  async close(): Promise<void> {
    if (this.address !== undefined) this.net.eventBuses.unbind(this.address, this);
    this.address = undefined;
    this.subscribers.clear();
  }
}

class MemoryEventSubscriber implements IEventSubscriber {
  private readonly inbox = new Inbox<{ tag: string; body: Buffer }>();
  private attached = false;
  private readonly attachWaiters: Array<() => void> = [];
  private readonly cancel: () => void;

  constructor(
    net: MemoryTransport,
    address: string,
    private readonly prefixes: string[],
  ) {
    this.cancel = net.eventBuses.whenBound(address, (bus) => {
      bus.subscribers.add(this);
      this.attached = true;
      this.attachWaiters.splice(0).forEach((w) => w());
    });
  }

  sync(timeoutMs: number): Promise<void> {
    if (this.attached) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new TransportError('TIMEOUT', 'the master event bus did not answer', {
            hint: 'is salt-master running with this configuration (-c)?',
          }),
        );
      }, timeoutMs);
      this.attachWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async next(timeoutMs: number): Promise<{ tag: string; body: Buffer } | null> {
    return this.inbox.take(timeoutMs);
  }

  private closed = false;

  listensTo(tag: string): boolean {
    return !this.closed && this.prefixes.some((p) => tag.startsWith(p));
  }

  deliver(tag: string, body: Buffer): void {
    if (this.listensTo(tag)) this.inbox.push({ tag, body });
  }

  close(): void {
    this.closed = true;
    this.cancel();
    this.inbox.end();
  }
}

/** The in-memory event intake: pushes reach the puller bound at their address (or are dropped). */
class MemoryEventPuller implements IEventPuller {
  private address?: string;
  onEvent?: (tag: string, body: Buffer) => void;

  constructor(private readonly net: MemoryTransport) {}

  async bind(address: string, onEvent: (tag: string, body: Buffer) => void): Promise<void> {
    this.net.eventIntakes.bind(address, this, 'open the event intake');
    this.address = address;
    this.onEvent = onEvent;
  }

  async close(): Promise<void> {
    if (this.address !== undefined) this.net.eventIntakes.unbind(this.address, this);
    this.address = undefined;
  }
}

class MemoryEventPusher implements IEventPusher {
  constructor(
    private readonly net: MemoryTransport,
    private readonly address: string,
  ) {}

  async push(tag: string, body: Buffer): Promise<void> {
    const puller = this.net.eventIntakes.bound.get(this.address);
    if (!puller?.onEvent) throw new TransportError('TRANSPORT', `no event intake at ${this.address}`);
    puller.onEvent(tag, Buffer.from(body));
  }

  close(): void {
    // Nothing held.
  }
}

/**
 * One in-memory network.
 *
 * @example
 * const net = new MemoryTransport();
 * const server = net.requestServer();
 * await server.bind('mem://master:4506');
 * server.serve(async (payload) => payload, console.error);
 * await net.requestClient('mem://master:4506').request(Buffer.from('ping'), 1000); // <Buffer 70 69 6e 67>
 */
export class MemoryTransport implements Transport {
  readonly publishers = new Binds<MemoryPublishServer>();
  readonly requestServers = new Binds<MemoryRequestServer>();
  readonly eventBuses = new Binds<MemoryEventPublisher>();
  readonly eventIntakes = new Binds<MemoryEventPuller>();

  publishServer(): IPublishServer {
    return new MemoryPublishServer(this);
  }

  subscribeClient(_options?: ReconnectOptions): ISubscribeClient {
    return new MemorySubscribeClient(this);
  }

  requestServer(options: { admit?: AdmitConnection } = {}): IRequestServer {
    return new MemoryRequestServer(this, options.admit);
  }

  requestClient(address: string, _options?: ReconnectOptions): IRequestClient {
    return new MemoryRequestClient(this, address);
  }

  eventPublisher(): IEventPublisher {
    return new MemoryEventPublisher(this);
  }

  eventSubscriber(address: string, prefixes: string[]): IEventSubscriber {
    return new MemoryEventSubscriber(this, address, prefixes);
  }

  eventPuller(): IEventPuller {
    return new MemoryEventPuller(this);
  }

  eventPusher(address: string): IEventPusher {
    return new MemoryEventPusher(this, address);
  }

  raiseSocketLimit(): void {
    // No sockets, no limit.
  }
}
