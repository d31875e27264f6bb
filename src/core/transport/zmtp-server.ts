/**
 * A listening ZeroMQ socket in plain Node: the TCP (or Unix) listener behind the master's request
 * and publish ports, and the ZMTP handshake of each connection (zmtp.ts). What the port does with
 * a connection's messages (ROUTER, PUB) is zmtp-router.ts's and zmtp-publisher.ts's.
 *
 * Why not libzmq, as before: a libzmq connection on a busy port holds 45-90 KiB (its pipes grow to
 * two 16 KiB chunks each way, docs/scaling.md), a Node socket about 6.5 KiB; at 10,000 minions
 * that is most of the master's memory. libzmq also hands every message through its I/O thread.
 *
 * As libzmq does: a handshake not done within 30 s (ZMQ_HANDSHAKE_IVL) drops the connection; a
 * peer refused by `admit` gets an ERROR command ("400", the ZAP status) in place of READY; an
 * `ipc://` path left over by an earlier run is replaced, and removed on close. A peer that breaks
 * the protocol is dropped without a word, the port goes on.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { TransportError } from '../errors';
import type { AdmitConnection } from './types';
import { RepeatedWarning } from '../log/repeated-warning';
import { OpenFilesWatch } from './open-files';
import { GREETING, ZmtpReader, errorCommand, readyCommand, readyProperties, zmtpCommand, zmtpEndpoint, type ZmtpHandlers } from './zmtp';

/** libzmq's ZMQ_HANDSHAKE_IVL default. */
const HANDSHAKE_MS = 30_000;
/** Salt's zmq_backlog default. */
const DEFAULT_BACKLOG = 1000;
const OPEN_FILES_HINT =
  "raise the process's open files limit (ulimit -n, systemd LimitNOFILE=): each minion holds one on the request port and one on the publish port's process";

/** One peer's connection, once its handshake is done. */
export class ZmtpPeer {
  constructor(
    readonly id: number,
    readonly socket: Socket,
    readonly address: string,
  ) {}

  get isOpen(): boolean {
    return !this.socket.destroyed;
  }

  /** Writes bytes already framed; false once the peer is gone. */
  write(bytes: Buffer): boolean {
    if (this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /** Ends the connection at once (what was not yet written is lost). */
  drop(): void {
    this.socket.destroy();
  }

  /** Bytes written but not yet taken by the kernel. */
  get queuedBytes(): number {
    return this.socket.writableLength;
  }
}

export interface ZmtpPortOptions {
  /** Our Socket-Type in READY. */
  socketType: string;
  /** The Socket-Types that may connect (ZMTP 3.1's compatibility table). */
  peerTypes: ReadonlySet<string>;
  backlog?: number;
  admit?: AdmitConnection;
  /** How long a connection may take over its handshake (ms; libzmq's 30 s unless given). */
  handshakeMs?: number;
  /** The largest message taken (MAX_MESSAGE_BYTES unless given). */
  maxMessageBytes?: number;
  /**
   * A message with a frame over `maxMessageBytes`, let go of as it came (see
   * ZmtpHandlers.oversized). Without it, such a frame drops the connection.
   */
  onOversized?(peer: ZmtpPeer, before: Buffer[], bytes: number): void;
  /** A peer's handshake is done. */
  onPeer?(peer: ZmtpPeer): void;
  /** A whole message from a peer. */
  onMessage(peer: ZmtpPeer, frames: Buffer[]): void;
  /** A command after the handshake other than PING (SUBSCRIBE, CANCEL, ...). */
  onCommand?(peer: ZmtpPeer, name: string, data: Buffer): void;
  /** A peer's connection ended (after its handshake). */
  onGone?(peer: ZmtpPeer): void;
  /**
   * Trouble taking connections: the process near its open files limit (`OPEN_FILES`, see
   * open-files.ts: at the limit connections are refused without a word), or connections the
   * listener failed to accept (`ACCEPT`). Each kind is told at once, then at most once a minute.
   */
  onWarning?(err: TransportError): void;
}

/** A listening port and its connections. */
export class ZmtpPort {
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly paths: string[] = [];
  private nextId = 1;
  private closed = false;
  /** The last accept that failed, and the report of such failures: the first at once, then once a minute with their count. */
  private acceptError?: NodeJS.ErrnoException;
  private readonly acceptFailures = new RepeatedWarning({
    warning: (line) => {
      const err = this.acceptError;
      const outOfFiles = err?.code === 'EMFILE' || err?.code === 'ENFILE';
      this.options.onWarning?.(new TransportError('ACCEPT', line, { cause: err, hint: outOfFiles ? OPEN_FILES_HINT : undefined }));
    },
  });
  /** What the port listens for and where, for its warnings. */
  private described = '';
  private readonly openFiles = new OpenFilesWatch((inUse, limit) =>
    this.options.onWarning?.(
      new TransportError(
        'OPEN_FILES',
        `${inUse} of this process's ${limit} open files are in use, ${this.sockets.size} of them connections ${this.described}: at the limit new connections are refused without a word`,
        { hint: OPEN_FILES_HINT },
      ),
    ),
  );

  constructor(private readonly options: ZmtpPortOptions) {}

  async bind(address: string, what: string): Promise<void> {
    if (this.closed) throw new TransportError('CLOSED', `cannot listen ${what} on ${address}: the port is closed`);
    const where = zmtpEndpoint(address, `to listen ${what} on`);
    const server = createServer({ noDelay: true }, (socket) => this.accept(socket));
    server.maxConnections = Number.MAX_SAFE_INTEGER;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const inUse = err.code === 'EADDRINUSE';
        reject(
          new TransportError(inUse ? 'ADDRESS_IN_USE' : 'TRANSPORT', `cannot listen ${what} on ${address}: ${err.message}`, {
            cause: err,
            hint: inUse ? 'another process listens on that port: stop it or choose another port' : undefined,
          }),
        );
      });
      const backlog = this.options.backlog ?? DEFAULT_BACKLOG;
      if ('path' in where) {
        // As libzmq: a socket file left by an earlier run is replaced.
        rmSync(where.path, { force: true });
        server.listen({ path: where.path, backlog }, resolve);
      } else {
        // libzmq's `*` is every IPv4 interface (IPv6 only with ZMQ_IPV6).
        const host = where.host === '*' ? '0.0.0.0' : where.host;
        server.listen({ host, port: where.port, backlog, exclusive: true }, resolve);
      }
    });
    // Once listening, a server's errors are the connections it failed to accept.
    server.on('error', (err: NodeJS.ErrnoException) => this.acceptFailed(err));
    this.servers.push(server);
    this.described = `${what} on ${address}`;
    if ('path' in where) this.paths.push(where.path);
  }

  /** Stops listening and drops every connection; resolves once the addresses are free. */
  async close(): Promise<void> {
    this.closed = true;
    const servers = this.servers.splice(0);
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    // Node removes a Unix socket's file itself; this covers one it could not.
    for (const path of this.paths.splice(0)) rmSync(path, { force: true });
  }

  private acceptFailed(err: NodeJS.ErrnoException): void {
    this.acceptError = err;
    this.acceptFailures.note(
      (count) => `cannot accept connections ${this.described}: ${err.message} (${count} refused since the last report)`,
    );
  }

  private accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    this.openFiles.connected(this.sockets.size);
    const connection = new Connection(this, this.options, socket);
    (socket as TaggedSocket)[CONNECTION] = connection;
    socket.write(GREETING);
    socket.on('data', onData);
    socket.on('error', ignore); // 'close' follows
    socket.on('close', onClose);
  }

  /** A connection's handshake is done: its peer, numbered. */
  newPeer(socket: Socket, address: string): ZmtpPeer {
    return new ZmtpPeer(this.nextId++, socket, address);
  }

  /** A connection closed (after its handshake or not). */
  gone(socket: Socket, peer: ZmtpPeer | undefined): void {
    this.sockets.delete(socket);
    if (peer) this.options.onGone?.(peer);
  }
}

/**
 * One accepted connection through its handshake and after: the reader's handlers (greeting,
 * commands, messages) as methods, and the socket's listeners as functions shared by every
 * connection, which find it on the socket (CONNECTION). Closures per connection (eight of them,
 * with their context) were about 600 bytes of heap each, 6 MiB at 10,000 minions on each of the
 * master's two ports.
 */
class Connection implements ZmtpHandlers {
  readonly reader: ZmtpReader;
  private readonly address: string;
  private peer?: ZmtpPeer;
  private refused = false;
  /** Let go of once cleared: the connection lives as long as its socket. */
  private handshake?: NodeJS.Timeout;
  /** ZmtpHandlers.oversized, there only when the port takes oversized messages (else they drop the peer). */
  oversized?: (before: Buffer[], bytes: number) => void;

  constructor(
    private readonly port: ZmtpPort,
    private readonly options: ZmtpPortOptions,
    readonly socket: Socket,
  ) {
    this.address = (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    if (options.onOversized) this.oversized = passOversized;
    this.reader = new ZmtpReader(this, options.maxMessageBytes);
    this.handshake = setTimeout(dropConnection, options.handshakeMs ?? HANDSHAKE_MS, this);
    this.handshake.unref();
  }

  drop(): void {
    this.reader.stopped = true;
    this.socket.destroy();
  }

  greeting(): void {
    let ok = true;
    if (this.options.admit) {
      try {
        ok = this.options.admit(this.address);
      } catch {
        ok = false; // a failing decision refuses: the peer tries again later
      }
    }
    if (ok) {
      this.socket.write(readyCommand(this.options.socketType));
    } else {
      this.refused = true;
      this.socket.end(errorCommand('400'));
      this.reader.stopped = true;
    }
  }

  command(name: string, data: Buffer): void {
    if (this.refused) return;
    const peer = this.peer;
    if (name === 'READY' && !peer) {
      const type = readyProperties(data).get('socket-type');
      if (type === undefined || !this.options.peerTypes.has(type)) {
        this.socket.end(errorCommand(`invalid socket type ${type ?? '(none)'}`));
        this.reader.stopped = true;
        return;
      }
      clearTimeout(this.handshake);
      this.handshake = undefined;
      this.peer = this.port.newPeer(this.socket, this.address);
      this.options.onPeer?.(this.peer);
    } else if (!peer) {
      throw new Error(`${name} before READY`);
    } else if (name === 'PING') {
      if (data.length < 2) throw new Error('a PING without its TTL');
      this.socket.write(zmtpCommand('PONG', data.subarray(2)));
    } else if (name === 'ERROR') {
      this.drop();
    } else if (name !== 'PONG') {
      this.options.onCommand?.(peer, name, data);
    }
  }

  message(frames: Buffer[]): void {
    if (!this.peer) throw new Error('a message before READY');
    this.options.onMessage(this.peer, frames);
  }

  closed(): void {
    clearTimeout(this.handshake);
    this.reader.stopped = true;
    this.port.gone(this.socket, this.peer);
  }

  /** For passOversized. */
  handOversized(before: Buffer[], bytes: number): void {
    if (!this.peer) throw new Error('a message before READY');
    this.options.onOversized!(this.peer, before, bytes);
  }
}

const CONNECTION = Symbol('zmtp connection');
type TaggedSocket = Socket & { [CONNECTION]: Connection };

function onData(this: Socket, chunk: Buffer): void {
  const connection = (this as TaggedSocket)[CONNECTION];
  try {
    connection.reader.push(chunk);
  } catch {
    connection.drop(); // not ZMTP 3 with NULL, or a broken frame: libzmq drops such a peer silently too
  }
}

function onClose(this: Socket): void {
  (this as TaggedSocket)[CONNECTION].closed();
}

function ignore(): void {}

function dropConnection(connection: Connection): void {
  connection.drop();
}

function passOversized(this: Connection, before: Buffer[], bytes: number): void {
  this.handOversized(before, bytes);
}
