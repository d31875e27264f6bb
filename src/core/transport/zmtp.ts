/**
 * ZMTP 3.1 (rfc.zeromq.org/spec/37) with the NULL mechanism, the wire protocol of ZeroMQ that
 * Salt's minions and masters speak (through libzmq), in plain Node: the greeting, the READY and
 * ERROR commands, frames, and a reader that turns bytes into commands and messages. The commands'
 * request client (zmtp-request.ts) and the master's ports (zmtp-server.ts) are built on it.
 */
import { TransportError } from '../errors';

export const MORE = 0x01;
export const LONG = 0x02;
export const COMMAND = 0x04;
/** The largest frame and message taken (a frame's header over it is refused before its bytes are held). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
export const GREETING_BYTES = 64;

/**
 * A greeting: signature (0xFF, eight bytes of padding, 0x7F; libzmq sets the last padding byte to
 * 1 so a ZMTP 1.0 peer reads a one-byte identity), version 3.1, mechanism NULL, as-server 0 (NULL
 * has no roles).
 */
export const GREETING = (() => {
  const g = Buffer.alloc(GREETING_BYTES);
  g[0] = 0xff;
  g[8] = 0x01;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = 1;
  g.write('NULL', 12, 'latin1');
  return g;
})();

/** The header and body of one frame. */
export function zmtpFrame(flags: number, body: Buffer): Buffer {
  return Buffer.concat([frameHead(flags, body.length), body]);
}

/** A frame's header alone (flags, then a 1- or 8-byte size). */
export function frameHead(flags: number, size: number): Buffer {
  if (size <= 0xff) return Buffer.from([flags, size]);
  const head = Buffer.alloc(9);
  head[0] = flags | LONG;
  head.writeBigUInt64BE(BigInt(size), 1);
  return head;
}

/** A whole message, each frame but the last marked MORE: what goes on the wire in one write. */
export function encodeMessage(frames: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  frames.forEach((frame, i) => parts.push(frameHead(i < frames.length - 1 ? MORE : 0, frame.length), frame));
  return Buffer.concat(parts);
}

/** A command frame: its name, then its data. */
export function zmtpCommand(name: string, data: Buffer = Buffer.alloc(0)): Buffer {
  return zmtpFrame(COMMAND, Buffer.concat([Buffer.from([name.length]), Buffer.from(name, 'latin1'), data]));
}

/** READY with the metadata property Socket-Type. */
export function readyCommand(socketType: string): Buffer {
  const name = Buffer.from('Socket-Type', 'latin1');
  const value = Buffer.from(socketType, 'latin1');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(value.length);
  return zmtpCommand('READY', Buffer.concat([Buffer.from([name.length]), name, size, value]));
}

/** ERROR with its reason (libzmq sends the ZAP status code, "400", when authentication refuses). */
export function errorCommand(reason: string): Buffer {
  const text = Buffer.from(reason.slice(0, 255), 'latin1');
  return zmtpCommand('ERROR', Buffer.concat([Buffer.from([text.length]), text]));
}

/** A READY command's metadata: name (1-byte length) and value (4-byte length), repeated; names lower-cased. */
export function readyProperties(data: Buffer): Map<string, string> {
  const props = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const nameLen = data[at];
    if (at + 1 + nameLen + 4 > data.length) throw new Error('a READY property runs past its command');
    const name = data.toString('latin1', at + 1, at + 1 + nameLen);
    const valueLen = data.readUInt32BE(at + 1 + nameLen);
    const start = at + 1 + nameLen + 4;
    if (start + valueLen > data.length) throw new Error(`READY property ${name} runs past its command`);
    props.set(name.toLowerCase(), data.toString('latin1', start, start + valueLen));
    at = start + valueLen;
  }
  return props;
}

/** The peer's greeting: ZMTP 3 or later, with the NULL mechanism. */
export function checkGreeting(g: Buffer): void {
  if (g[0] !== 0xff || (g[9] & 0x01) !== 0x01) throw new Error('no ZMTP signature');
  if (g[10] < 3) throw new Error(`it speaks ZMTP ${g[10]}.x; version 3 or later is needed (libzmq 4 and later)`);
  const mechanism = g.toString('latin1', 12, 32).replace(/\0+$/, '');
  if (mechanism !== 'NULL') throw new Error(`it asks for the ${mechanism} mechanism; brine's ports use NULL`);
}

/** Where a ZeroMQ address points: `tcp://host:port` (host may be `[v6]` or `*`) or `ipc://path`. */
export function zmtpEndpoint(address: string, what: string): { host: string; port: number } | { path: string } {
  if (address.startsWith('ipc://') && address.length > 'ipc://'.length) return { path: address.slice('ipc://'.length) };
  const m = /^tcp:\/\/(?:\[([^\]]+)\]|([^:/[\]]+)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : -1;
  if (!m || port < 0 || port > 65535) {
    throw new TransportError('TRANSPORT', `"${address}" is not an address ${what}`, { hint: 'give tcp://HOST:PORT or ipc://PATH' });
  }
  return { host: m[1] ?? m[2], port };
}

/** zmtpEndpoint for a connection: port 0 is for listening only. */
/** What node:net's createConnection takes for `where`, made from `source` (a local address and port) when given. */
export function connectOptions(
  where: ReturnType<typeof zmtpEndpoint>,
  source: { address: string; port?: number } | undefined,
): ReturnType<typeof zmtpEndpoint> & { localAddress?: string; localPort?: number } {
  if (!source || !('port' in where)) return where;
  return { ...where, localAddress: source.address, ...(source.port ? { localPort: source.port } : {}) };
}

export function zmtpConnectEndpoint(address: string, what: string): ReturnType<typeof zmtpEndpoint> {
  const where = zmtpEndpoint(address, what);
  if ('port' in where && where.port === 0) {
    throw new TransportError('TRANSPORT', `"${address}" is not an address ${what}: port 0`, { hint: 'give tcp://HOST:PORT or ipc://PATH' });
  }
  return where;
}

const EMPTY = Buffer.alloc(0);

/** Bytes as they arrive, taken in exact counts (messages come in many reads; copy each byte once). */
class Bytes {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The first n bytes, without taking them (n <= length). */
  peek(n: number): Buffer {
    // An empty frame may end the bytes read so far: there is no chunk to take nothing from.
    if (n === 0) return EMPTY;
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }

  take(n: number): Buffer {
    if (n === 0) return EMPTY;
    const out = this.peek(n);
    const first = this.chunks[0];
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.length -= n;
    this.letGoIfEmpty();
    return out;
  }

  /**
   * An emptied array keeps the room it grew to (152 bytes at 17 chunks); a connection waits empty
   * nearly all its life, and a master has 10,000 of them on each port: a new [] holds none.
   */
  private letGoIfEmpty(): void {
    if (this.length === 0) this.chunks = [];
  }

  /** Lets go of the first n bytes (n <= length) without joining the chunks they are in. */
  drop(n: number): void {
    this.length -= n;
    while (n > 0) {
      const first = this.chunks[0];
      if (first.length <= n) {
        this.chunks.shift();
        n -= first.length;
      } else {
        this.chunks[0] = first.subarray(n);
        n = 0;
      }
    }
    this.letGoIfEmpty();
  }
}

/** What a ZmtpReader hands on. */
export interface ZmtpHandlers {
  /** The peer's greeting, checked (ZMTP 3, NULL). */
  greeting?(): void;
  /** A command, by name (READY, ERROR, PING, SUBSCRIBE, ...), with its data. */
  command(name: string, data: Buffer): void;
  /** A whole message, its frames in order. */
  message(frames: Buffer[]): void;
  /**
   * A message with a frame over the reader's limit, once it has passed: its bytes were let go of
   * as they came, never held; `before` are the frames read ahead of the first such frame. Without
   * this handler such a frame is an error, as a command over the limit always is.
   */
  oversized?(before: Buffer[], bytes: number): void;
}

/**
 * Turns a connection's bytes into the peer's greeting, commands and messages. push() throws an
 * Error naming the first thing that is not ZMTP 3 (the caller drops the connection); nothing is
 * read after that. Each frame's body is copied out of the read buffers, so a message kept does
 * not keep the reads it came in.
 */
export class ZmtpReader {
  private readonly input = new Bytes();
  private greeted = false;
  private frames: Buffer[] = [];
  private frameBytes = 0;
  /** Bytes of an oversized frame still to let go of, and whether more frames follow it. */
  private skipping = 0;
  private skipMore = false;
  /** The message under way has an oversized frame: the frames read before it, and its size. */
  private oversizedBefore?: Buffer[];
  private oversizedBytes = 0;
  /** Set by the handlers to stop reading (the connection was dropped). */
  stopped = false;

  constructor(
    private readonly handlers: ZmtpHandlers,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    this.input.push(chunk);
    if (!this.greeted) {
      if (this.input.length < GREETING_BYTES) {
        // The signature alone tells a peer that is no ZMTP 3 one: do not wait for 64 bytes from it.
        if (this.input.length >= 1 && this.input.peek(1)[0] !== 0xff) throw new Error('no ZMTP signature');
        return;
      }
      checkGreeting(this.input.take(GREETING_BYTES));
      this.greeted = true;
      this.handlers.greeting?.();
    }
    while (!this.stopped && this.input.length > 0) {
      if (this.skipping > 0) {
        const n = Math.min(this.skipping, this.input.length);
        this.input.drop(n);
        this.skipping -= n;
        if (this.skipping === 0) this.onFrame(EMPTY, this.skipMore);
        continue;
      }
      if (this.input.length < 2) return;
      const head = this.input.peek(Math.min(this.input.length, 9));
      const flags = head[0];
      if (flags & ~(MORE | LONG | COMMAND)) throw new Error(`a frame has reserved flag bits set (0x${flags.toString(16)})`);
      const headBytes = flags & LONG ? 9 : 2;
      if (head.length < headBytes) return;
      const size = flags & LONG ? head.readBigUInt64BE(1) : BigInt(head[1]);
      if (size > BigInt(this.maxBytes)) {
        if (flags & COMMAND || !this.handlers.oversized || size > BigInt(Number.MAX_SAFE_INTEGER)) {
          throw new Error(`a frame of ${size} bytes is more than the ${this.maxBytes} taken`);
        }
        this.input.drop(headBytes);
        if (!this.oversizedBefore) this.oversizedBytes = Number(size);
        this.oversizedBefore ??= this.frames;
        this.frames = [];
        this.skipping = Number(size);
        this.skipMore = (flags & MORE) !== 0;
        continue;
      }
      if (this.input.length < headBytes + Number(size)) return;
      this.input.take(headBytes);
      const body = Buffer.from(this.input.take(Number(size)));
      if (flags & COMMAND) this.onCommand(body);
      else this.onFrame(body, (flags & MORE) !== 0);
    }
  }

  private onCommand(body: Buffer): void {
    if (body.length < 1 || body.length < 1 + body[0]) throw new Error('a command frame without its name');
    this.handlers.command(body.toString('latin1', 1, 1 + body[0]), body.subarray(1 + body[0]));
  }

  private onFrame(body: Buffer, more: boolean): void {
    if (this.oversizedBefore) {
      // The rest of a message already refused: its frames are let go of too, small or not.
      if (more) return;
      const before = this.oversizedBefore;
      this.oversizedBefore = undefined;
      this.frames = [];
      this.frameBytes = 0;
      this.handlers.oversized!(before, this.oversizedBytes);
      return;
    }
    this.frameBytes += body.length;
    if (this.frameBytes > this.maxBytes) throw new Error(`a message of more than the ${this.maxBytes} bytes taken`);
    this.frames.push(body);
    if (more) return;
    const frames = this.frames;
    this.frames = [];
    this.frameBytes = 0;
    this.handlers.message(frames);
  }
}
