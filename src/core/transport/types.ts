/**
 * What the master, the minion and the client need of a transport: bytes in frames, nothing else
 * (no msgpack, no crypto). `zeromq.ts` implements it over ZeroMQ sockets, `memory.ts` in-process
 * for unit tests. Errors are `TransportError`s (codes `TIMEOUT`, `CLOSED`, `ADDRESS_IN_USE`,
 * `TRANSPORT`).
 */

export interface ReconnectOptions {
  /** First reconnect delay in ms (Salt's recon_default). */
  reconnectInterval?: number;
  /** Largest reconnect delay in ms (Salt's recon_max); 0 keeps the first delay. */
  reconnectMax?: number;
}

/** A minion's connection to one of the master's ports: reconnecting, and Salt's tcp_keepalive. */
export interface ConnectionOptions extends ReconnectOptions {
  /**
   * TCP keepalive on the connection (Salt's tcp_keepalive), its probes starting after `idleSeconds`
   * idle (tcp_keepalive_idle; 0 or less keeps the system's). Absent: no keepalive.
   */
  keepAlive?: { idleSeconds: number };
  /**
   * The local address (and port, 0 or absent: any) a TCP connection is made from: Salt's
   * source_address / source_interface_name with source_ret_port / source_publish_port.
   */
  source?: { address: string; port?: number };
}

/** The master's publish port: one message to every subscriber. */
export interface IPublishServer {
  bind(address: string): Promise<void>;
  publish(frames: Buffer[]): Promise<void>;
  /** Resolves once the address is free again. */
  close(): Promise<void>;
}

/** A minion's subscription to the publish port, reconnecting on its own. */
export interface ISubscribeClient {
  connect(address: string): void;
  /** Resolves once the subscription reaches the publisher. */
  whenConnected(): Promise<void>;
  readonly isConnected: boolean;
  /** Called each time the connection comes back after a drop (not the first time), with when it dropped. */
  onReconnect(listener: (downSince: number) => void): void;
  /** Every message, until close(). */
  messages(): AsyncIterable<Buffer[]>;
  close(): void;
}

/** Who sent a request: opaque to everyone above (ZeroMQ's routing id). */
export type Peer = Buffer;

/**
 * Answers one request; null sends no answer. `connected` tells whether the connection the request
 * came on is still open (a minion whose request timed out closes it and asks again on a new one,
 * Salt's as brine's); it is absent where the transport cannot tell (libzmq's ROUTER).
 */
export type RequestServe = (payload: Buffer, peer: Peer, connected?: () => boolean) => Promise<Buffer | null>;

/**
 * Who may open a connection to the request port: called with the peer's IP address for every new
 * connection, before any of its requests is read. False refuses the connection: ZeroMQ ends it at
 * the handshake (with an ERROR command) and does not retry it, so a libzmq peer's pending request
 * times out (the ZMTP client's fails at once) and the peer tries again on a new connection (as
 * brine's clients and Salt's do).
 */
export type AdmitConnection = (address: string) => boolean;

/** The master's request port: requests handled concurrently, each reply to its peer. */
export interface IRequestServer {
  bind(address: string): Promise<void>;
  serve(handler: RequestServe, onError: (err: unknown) => void): void;
  close(): Promise<void>;
}

/** One request at a time to the request port; `TransportError TIMEOUT` after timeoutMs. */
export interface IRequestClient {
  request(payload: Buffer, timeoutMs: number): Promise<Buffer>;
  close(): void;
}

/** The master's local event bus: tag + body. */
export interface IEventPublisher {
  bind(address: string): Promise<void>;
  publish(tag: string, body: Buffer): Promise<void>;
  /**
   * Whether a subscriber listens to `tag` (one of its prefixes starts it), as far as the publisher
   * has seen the subscriptions: a subscriber's own are seen once its sync() has resolved.
   */
  wants(tag: string): boolean;
  close(): Promise<void>;
}

/** A listener on the event bus, for the tags starting with one of its prefixes. */
export interface IEventSubscriber {
  /** Resolves once the publisher has seen the subscription; `TransportError TIMEOUT` otherwise. */
  sync(timeoutMs: number): Promise<void>;
  /** The next event, or null when none arrives within timeoutMs. */
  next(timeoutMs: number): Promise<{ tag: string; body: Buffer } | null>;
  close(): void;
}

/**
 * The master's event intake (Salt's master_event_pull.ipc): local processes (salt-api's
 * webhooks, runner and wheel jobs) push [tag, body] and the master republishes them.
 */
export interface IEventPuller {
  /** Calls onEvent for every well-formed [tag, body] pushed; anything else is dropped. */
  bind(address: string, onEvent: (tag: string, body: Buffer) => void): Promise<void>;
  close(): Promise<void>;
}

/** Pushes events to a master's event intake. */
export interface IEventPusher {
  push(tag: string, body: Buffer): Promise<void>;
  close(): void;
}

export interface RequestServerOptions {
  admit?: AdmitConnection;
  backlog?: number;
  maxRequestBytes?: number;
  oversized?: (bytes: number) => Buffer | null;
}

/** Makes the sockets; the master, the minion and the client take one (default: ZeroMQ). */
export interface Transport {
  /** `backlog`: pending TCP connections the listening socket queues (Salt's zmq_backlog). */
  publishServer(options?: { highWaterMark?: number; backlog?: number }): IPublishServer;
  subscribeClient(options?: ConnectionOptions): ISubscribeClient;
  /**
   * `maxRequestBytes` with `oversized`: a larger request is not held where the transport can help
   * it (Node's port lets its bytes go as they come); `oversized(bytes)` gives the reply to send
   * instead, or null to cut the peer off. Elsewhere the handler sees such requests whole.
   */
  requestServer(options?: RequestServerOptions): IRequestServer;
  requestClient(address: string, options?: ConnectionOptions): IRequestClient;
  eventPublisher(): IEventPublisher;
  eventSubscriber(address: string, prefixes: string[]): IEventSubscriber;
  eventPuller(): IEventPuller;
  eventPusher(address: string): IEventPusher;
  /** Room for this many sockets in the process (ZeroMQ's default is 1023); a no-op where there is no limit. */
  raiseSocketLimit(max: number): void;
}
