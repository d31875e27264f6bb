/**
 * The master's local event bus and event intake on Unix stream sockets, as Salt 3007 has them
 * (salt/transport/tcp.py's PublishServer on `<sock_dir>/master_event_pub.ipc`, fed through
 * `<sock_dir>/master_event_pull.ipc`): each way a stream of msgpack frames `{head: {}, body}`
 * (salt/transport/frame.py), each event's body the bytes `tag + "\n\n" + msgpack(data)`
 * (salt/utils/event.py's TAGEND). Salt's own listeners and senders on the master's host read and
 * write brine's bus as they do Salt's.
 *
 * Why not ZeroMQ, as the bus was before: in a profile of the master during jobs at 2,000 minions
 * (docs/scaling.md), the XPUB send of each return's event took a fifth of the main thread; here
 * one frame is built per event and written, corked for the rest of the event-loop turn, to each
 * listener that wants it.
 *
 * brine's listeners add two frames of their own on the same stream (Salt's publisher reads what a
 * listener sends and hands it to a presence callback; read in its source, not tried against a
 * Salt master, which would not answer a sync): `{subscribe: [prefix, ...]}`, the tags they want, which
 * the publisher both filters by and answers `wants(tag)` from; and `{sync: id}`, which the
 * publisher answers, to that listener alone, with an event tagged `brine/sync/<id>`: once it
 * arrives, the publisher has seen the subscription, so no event published after is missed. A
 * listener that has sent no subscription (Salt's) gets every event.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { TransportError } from '../errors';
import { decode, encode, toBytes, valueEnd } from '../protocol/msgpack';
import type { IEventPublisher, IEventPuller, IEventPusher, IEventSubscriber } from './types';

const SYNC_PREFIX = 'brine/sync/';
const TAGEND = Buffer.from('\n\n');
const EMPTY = Buffer.alloc(0);
const DONE = Promise.resolve();
/** The frame header up to the body's bin header: a map of two, "head" → {}, "body". */
const FRAME_START = Buffer.from([0x82, 0xa4, ...Buffer.from('head'), 0x80, 0xa4, ...Buffer.from('body')]);
/** The largest event a connection may send (a job's return can be large); a larger one ends it. */
const MAX_EVENT_BYTES = 256 * 1024 * 1024;
/** The largest frame a listener may send the publisher (its subscription or a sync). */
const MAX_CONTROL_BYTES = 64 * 1024;
/** What a listener may leave unread before the publisher cuts it off (see StreamEventPublisher.write). */
const MAX_UNREAD_BYTES = 512 * 1024 * 1024;
const MAX_PREFIXES = 1024;
const MAX_TAG_BYTES = 4096;
/** How long a pusher tries to reach the intake before its push fails (ZeroMQ's sendTimeout was 5 s). */
const PUSH_CONNECT_MS = 5000;

/**
 * One event as Salt frames it: `{head: {}, body: bin(tag + "\n\n" + data)}`. By hand, not with
 * `encode`: brine's msgpack writes bytes as raw strings (Salt's wire dialect), and Salt's IPC
 * readers (`Unpacker(raw=False)`) would take a raw string body for UTF-8 text, which msgpack data
 * is not; Salt packs it as bin (`frame_msg_ipc`, `use_bin_type=True`).
 */
export function frameEvent(tag: string, data: Buffer): Buffer {
  const tagBytes = Buffer.byteLength(tag, 'utf8');
  const size = tagBytes + TAGEND.length + data.length;
  const binHeader = size < 0x100 ? 2 : size < 0x10000 ? 3 : 5;
  const out = Buffer.allocUnsafe(FRAME_START.length + binHeader + size);
  FRAME_START.copy(out, 0);
  let at = FRAME_START.length;
  if (binHeader === 2) {
    out[at] = 0xc4;
    out[at + 1] = size;
  } else if (binHeader === 3) {
    out[at] = 0xc5;
    out.writeUInt16BE(size, at + 1);
  } else {
    out[at] = 0xc6;
    out.writeUInt32BE(size, at + 1);
  }
  at += binHeader;
  at += out.write(tag, at, 'utf8');
  TAGEND.copy(out, at);
  data.copy(out, at + TAGEND.length);
  return out;
}

/** A listener's own frame (its subscription, a sync), msgpack as the events are. */
function frameControl(body: Record<string, unknown>): Buffer {
  return encode({ head: {}, body });
}

/** A frame's body, or undefined when the frame is not a `{head, body}` map of msgpack. */
function bodyOf(frame: Buffer): unknown {
  let value: unknown;
  try {
    value = decode(frame);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Map) return undefined;
  return (value as { body?: unknown }).body;
}

/** An event frame's tag and data; null when its body is not `tag + "\n\n" + data` with a sane tag. */
export function eventOf(frame: Buffer): { tag: string; body: Buffer } | null {
  const body = bodyOf(frame);
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return null;
  const bytes = toBytes(body);
  const end = bytes.indexOf(TAGEND);
  if (end <= 0 || end > MAX_TAG_BYTES) return null;
  return { tag: bytes.toString('utf8', 0, end), body: bytes.subarray(end + TAGEND.length) };
}

/**
 * Cuts a byte stream into msgpack frames (each frame's bytes, not decoded). Bytes are held until
 * a frame is whole. A frame that declares more than `maxBytes`, or bytes that cannot be msgpack,
 * end the stream: `error` says why, the frames before them are still given, and nothing after.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the frame begun needs at least: no scan before they are there. */
  private need = 1;
  /** Why the stream cannot be read on; the caller ends the connection. */
  error?: Error;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): Buffer[] {
    if (this.error) return [];
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size < this.need) return [];
    const buf = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    const frames: Buffer[] = [];
    let at = 0;
    this.need = 1;
    try {
      while (at < buf.length) {
        const end = valueEnd(buf, at);
        if (end > buf.length) {
          this.need = end - at;
          break;
        }
        frames.push(buf.subarray(at, end));
        at = end;
      }
    } catch (err) {
      this.error = err as Error;
    }
    if (this.need > this.maxBytes) {
      this.error = new TransportError('TRANSPORT', `a frame of ${this.need} bytes or more is over the ${this.maxBytes}-byte limit`);
    }
    this.chunks = this.error || at === buf.length ? [] : [buf.subarray(at)];
    this.size = this.error ? 0 : buf.length - at;
    return frames;
  }
}

/** The longest Unix socket path (sun_path less its final NUL); libuv cuts a longer one short. */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** The socket file of an `ipc://` address (or a plain path). */
function socketPath(address: string): string {
  const path = address.startsWith('ipc://') ? address.slice('ipc://'.length) : address;
  if (path === '' || /^[a-z]+:\/\//.test(path)) {
    throw new TransportError('TRANSPORT', `the master's event sockets are Unix socket files; "${address}" is not one`, {
      hint: 'give an ipc:// address or a path (brine derives them from sock_dir)',
    });
  }
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new TransportError(
      'TRANSPORT',
      `the socket path ${path} is ${bytes} bytes, more than the ${MAX_SOCKET_PATH_BYTES} a Unix socket allows`,
      {
        hint: 'set a shorter sock_dir (or root_dir) in the master configuration',
      },
    );
  }
  return path;
}

/** Whether something accepts connections on the socket file (a master running), or it is stale. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => (probe.destroy(), resolve(true)));
    probe.once('error', () => resolve(false));
  });
}

/**
 * Listens on a socket file with Salt's permissions for it (`mode`). A stale socket, left by a
 * master that was killed, is replaced; one another process answers on, or a file that is not a
 * socket, is `TransportError ADDRESS_IN_USE`.
 */
async function listenOn(path: string, what: string, mode: number, onConnection: (socket: Socket) => void): Promise<Server> {
  for (let attempt = 0; ; attempt++) {
    const server = createServer(onConnection);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => (server.off('error', reject), resolve()));
      });
      chmodSync(path, mode);
      // Errors after this (a failed accept when out of file descriptors) end one connection at
      // most; the listener goes on.
      server.on('error', () => undefined);
      return server;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE' && !isSocket(path)) {
        throw new TransportError('ADDRESS_IN_USE', `cannot open ${what} at ${path}: a file that is not a socket is in the way`, {
          cause: err,
          hint: 'remove it, or give the master another sock_dir',
        });
      }
      if (code === 'EADDRINUSE' && attempt === 0 && !(await answers(path))) {
        unlinkQuietly(path);
        continue;
      }
      throw new TransportError(
        code === 'EADDRINUSE' ? 'ADDRESS_IN_USE' : 'TRANSPORT',
        `cannot open ${what} at ${path}: ${(err as Error).message}`,
        {
          cause: err,
          hint: code === 'EADDRINUSE' ? 'another master runs with this sock_dir: stop it, or give this one its own sock_dir' : undefined,
        },
      );
    }
  }
}

function isSocket(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSocket() ?? false;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Stops listening, ends every connection and removes the socket file. */
async function closeServer(server: Server | undefined, path: string | undefined, sockets: Iterable<Socket>): Promise<void> {
  if (!server) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) socket.destroy();
  await closed;
  if (path) unlinkQuietly(path);
}

/** Reads a connection's frames, ending the connection at bytes that are not frames. */
function readFrames(socket: Socket, maxBytes: number, onFrame: (frame: Buffer) => void): void {
  const reader = new FrameReader(maxBytes);
  socket.on('data', (chunk: Buffer) => {
    for (const frame of reader.push(chunk)) onFrame(frame);
    if (reader.error) socket.destroy();
  });
  // 'close' follows every error.
  socket.on('error', () => undefined);
}

interface Listener {
  socket: Socket;
  /** The tag prefixes it wants; null (a Salt listener, or one whose subscription is not read yet) for all. */
  prefixes: string[] | null;
}

function wantsTag(listener: Listener, tag: string): boolean {
  if (listener.prefixes === null) return true;
  for (const prefix of listener.prefixes) if (tag.startsWith(prefix)) return true;
  return false;
}

/** The master's event bus (see IEventPublisher). */
export class StreamEventPublisher implements IEventPublisher {
  private server?: Server;
  private path?: string;
  private readonly listeners = new Set<Listener>();
  /** Sockets corked this event-loop turn, uncorked together at its end. */
  private readonly corked: Socket[] = [];
  private readonly uncork = (): void => {
    for (const socket of this.corked.splice(0)) socket.uncork();
  };

  /** `maxUnreadBytes`: what a listener may leave unread before it is cut off (default 512 MiB). */
  constructor(private readonly maxUnreadBytes = MAX_UNREAD_BYTES) {}

  async bind(address: string): Promise<void> {
    const path = socketPath(address);
    // 0660 and 0600, as Salt's master makes them (salt/transport/base.py ipc_publish_server).
    this.server = await listenOn(path, 'the event bus', 0o660, (socket) => this.accept(socket));
    this.path = path;
  }

  private accept(socket: Socket): void {
    const listener: Listener = { socket, prefixes: null };
    this.listeners.add(listener);
    socket.once('close', () => this.listeners.delete(listener));
    readFrames(socket, MAX_CONTROL_BYTES, (frame) => this.control(listener, bodyOf(frame)));
  }

  /** A listener's subscription or sync; anything else it sends is ignored. */
  private control(listener: Listener, body: unknown): void {
    if (body === null || typeof body !== 'object') return;
    const { subscribe, sync } = body as { subscribe?: unknown; sync?: unknown };
    if (Array.isArray(subscribe) && subscribe.length <= MAX_PREFIXES && subscribe.every((p) => typeof p === 'string')) {
      listener.prefixes = subscribe as string[];
    }
    if (typeof sync === 'string' && sync.length <= 64) this.write(listener.socket, frameEvent(SYNC_PREFIX + sync, EMPTY));
  }

  publish(tag: string, body: Buffer): Promise<void> {
    let frame: Buffer | undefined;
    for (const listener of this.listeners) {
      if (!wantsTag(listener, tag)) continue;
      frame ??= frameEvent(tag, body);
      this.write(listener.socket, frame);
    }
    return DONE;
  }

  /**
   * Writes without waiting: a slow listener costs memory, not a lost event. Only one that has
   * left maxUnreadBytes unread (stopped, not slow) is cut off, so that it cannot take the
   * master's memory with it; a brine listener connects again by itself.
   */
  private write(socket: Socket, frame: Buffer): void {
    if (socket.destroyed) return;
    if (socket.writableLength > this.maxUnreadBytes) {
      socket.destroy();
      return;
    }
    if (!socket.writableCorked) {
      socket.cork();
      if (this.corked.push(socket) === 1) setImmediate(this.uncork);
    }
    socket.write(frame);
  }

  wants(tag: string): boolean {
    for (const listener of this.listeners) if (wantsTag(listener, tag)) return true;
    return false;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeServer(
      server,
      this.path,
      [...this.listeners].map((l) => l.socket),
    );
    this.listeners.clear();
  }
}

/** A listener on the master's event bus; reconnects on its own when the master restarts. */
export class StreamEventSubscriber implements IEventSubscriber {
  private readonly path: string;
  private socket?: Socket;
  private connected = false;
  private closed = false;
  private retryDelay = 20;
  private retryTimer?: NodeJS.Timeout;
  private readonly events: Array<{ tag: string; body: Buffer }> = [];
  private readonly waiters: Array<() => void> = [];
  /** Syncs not answered yet, by id: sent again on a new connection. */
  private readonly syncs = new Map<string, { resolve: () => void; reject: (err: Error) => void }>();
  private syncCount = 0;

  constructor(
    address: string,
    private readonly prefixes: string[],
  ) {
    this.path = socketPath(address);
    this.connect();
  }

  private connect(): void {
    const socket = createConnection(this.path);
    this.socket = socket;
    socket.once('connect', () => {
      this.connected = true;
      this.retryDelay = 20;
      socket.write(frameControl({ subscribe: this.prefixes }));
      for (const id of this.syncs.keys()) socket.write(frameControl({ sync: id }));
    });
    readFrames(socket, MAX_EVENT_BYTES, (frame) => this.receive(eventOf(frame)));
    socket.once('close', () => {
      if (this.socket !== socket) return;
      this.connected = false;
      this.socket = undefined;
      if (this.closed) return;
      // Nobody listens yet, or the master went away: try again, up to once a second.
      this.retryTimer = setTimeout(() => this.connect(), this.retryDelay).unref();
      this.retryDelay = Math.min(1000, this.retryDelay * 2);
    });
  }

  private receive(event: { tag: string; body: Buffer } | null): void {
    if (!event) return;
    if (event.tag.startsWith(SYNC_PREFIX)) {
      this.syncs.get(event.tag.slice(SYNC_PREFIX.length))?.resolve();
      return;
    }
    // A Salt publisher sends everything, and brine's until it has read the subscription.
    if (!this.prefixes.some((prefix) => event.tag.startsWith(prefix))) return;
    this.events.push(event);
    this.waiters.shift()?.();
  }

  /** Waits until the publisher has seen our subscriptions; rejects after timeoutMs. */
  sync(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new TransportError('CLOSED', 'the event listener is closed'));
    // Echoed to this listener alone: a number of its own is unique enough.
    const id = String(++this.syncCount);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.syncs.delete(id);
        reject(
          new TransportError('TIMEOUT', 'the master event bus did not answer', {
            hint: 'is salt-master running with this configuration (-c)?',
          }),
        );
      }, timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        this.syncs.delete(id);
      };
      this.syncs.set(id, {
        resolve: () => (settle(), resolve()),
        reject: (err) => (settle(), reject(err)),
      });
      if (this.connected) this.socket?.write(frameControl({ sync: id }));
    });
  }

  /** The next event, or null when none arrives within timeoutMs (or the listener is closed). */
  next(timeoutMs: number): Promise<{ tag: string; body: Buffer } | null> {
    const ready = this.events.shift();
    if (ready) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(this.events.shift() ?? null);
      };
      const timer = setTimeout(
        () => {
          const at = this.waiters.indexOf(wake);
          if (at >= 0) this.waiters.splice(at, 1);
          resolve(null);
        },
        Math.max(1, Math.ceil(timeoutMs)),
      );
      this.waiters.push(wake);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.socket?.destroy();
    for (const { reject } of [...this.syncs.values()]) reject(new TransportError('CLOSED', 'the event listener was closed'));
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** The master's event intake (see IEventPuller). */
export class StreamEventPuller implements IEventPuller {
  private server?: Server;
  private path?: string;
  private readonly sockets = new Set<Socket>();

  async bind(address: string, onEvent: (tag: string, body: Buffer) => void): Promise<void> {
    const path = socketPath(address);
    this.server = await listenOn(path, 'the event intake', 0o600, (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // Anything but an event frame is dropped: a local process cannot crash the master.
      readFrames(socket, MAX_EVENT_BYTES, (frame) => {
        const event = eventOf(frame);
        if (event) onEvent(event.tag, event.body);
      });
    });
    this.path = path;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeServer(server, this.path, this.sockets);
    this.sockets.clear();
  }
}

/** Pushes events to a master's event intake (see IEventPusher); connects on the first push. */
export class StreamEventPusher implements IEventPusher {
  private readonly path: string;
  private socket?: Promise<Socket>;
  private closed = false;

  /** `connectTimeoutMs`: how long a push waits for the intake to listen (default 5 s). */
  constructor(
    address: string,
    private readonly connectTimeoutMs = PUSH_CONNECT_MS,
  ) {
    this.path = socketPath(address);
  }

  async push(tag: string, body: Buffer): Promise<void> {
    if (this.closed) throw new TransportError('CLOSED', 'the event pusher is closed');
    this.socket ??= this.open();
    let socket: Socket;
    try {
      socket = await this.socket;
    } catch (err) {
      this.socket = undefined;
      throw err;
    }
    await new Promise<void>((resolve, reject) =>
      socket.write(frameEvent(tag, body), (err) =>
        err ? reject(new TransportError('TRANSPORT', `the master did not take the event: ${err.message}`, { cause: err })) : resolve(),
      ),
    );
  }

  /** A connection to the intake, tried again for up to connectTimeoutMs while nothing listens. */
  private async open(): Promise<Socket> {
    const deadline = Date.now() + this.connectTimeoutMs;
    for (let delay = 20; ; delay = Math.min(500, delay * 2)) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = createConnection(this.path);
          s.once('connect', () => (s.off('error', reject), resolve(s)));
          s.once('error', reject);
        });
        socket.on('error', () => undefined);
        socket.once('close', () => (this.socket = undefined));
        // Salt's intake sends nothing back; whatever comes is read and dropped.
        socket.resume();
        if (this.closed) socket.destroy();
        return socket;
      } catch (err) {
        if (Date.now() + delay > deadline || this.closed) {
          throw new TransportError('TIMEOUT', `the master did not take the event: nothing listens on ${this.path}`, {
            cause: err,
            hint: 'is salt-master running with this configuration (-c)?',
          });
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  close(): void {
    this.closed = true;
    void this.socket?.then(
      (s) => s.end(),
      () => undefined,
    );
    this.socket = undefined;
  }
}
