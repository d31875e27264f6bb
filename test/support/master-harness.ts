/**
 * An in-process master on a temporary root and free loopback ports, with its log captured, and a
 * raw request client that speaks the channel directly (for requests no real minion would send).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { buildAesRequest, buildAuthRequest, makeTok, openAesReply, openAuthReply } from '../../src/core/channel';
import { generateKeyPair } from '../../src/core/crypto/rsa';
import { createLogging, type Logging } from '../../src/core/log';
import { Master, type MasterSettings } from '../../src/core/master/master';
import { readRootKey } from '../../src/core/master/root-key';
import { decode } from '../../src/core/protocol/msgpack';
import { freePort } from './ports';

export class MasterHarness {
  readonly lines: string[] = [];
  master!: Master;
  settings!: MasterSettings;
  private logging!: Logging;

  private constructor(readonly root: string) {}

  static async start(overrides: Partial<MasterSettings> & Record<string, unknown> = {}): Promise<MasterHarness> {
    const h = new MasterHarness(mkdtempSync(join(tmpdir(), 'brine-harden-')));
    h.settings = {
      interface: '127.0.0.1',
      publish_port: await freePort(),
      ret_port: await freePort(),
      pki_dir: join(h.root, 'pki'),
      cachedir: join(h.root, 'cache'),
      sock_dir: join(h.root, 'sock'),
      keysize: 1024,
      auto_accept: false,
      autosign_file: '',
      open_mode: false,
      pub_hwm: 1000,
      worker_threads: 1,
      nodegroups: {},
      file_roots: { base: [join(h.root, 'srv')] },
      master_job_cache: 'local_cache',
      ...overrides,
    } as MasterSettings;
    h.logging = createLogging({ level: 'debug', console: true, stderr: { write: (t: string) => h.lines.push(t) } });
    h.master = new Master(h.settings, h.logging.getLogger('salt.master'));
    try {
      await h.master.start();
    } catch (err) {
      // A master that did not start leaves nothing behind: its ports, logging and folder go.
      await h.stop().catch(() => undefined);
      throw err;
    }
    return h;
  }

  get address(): string {
    return `tcp://127.0.0.1:${this.settings.ret_port}`;
  }

  get log(): string {
    return this.lines.join('');
  }

  rootKey(): string {
    return readRootKey(this.settings.cachedir);
  }

  async stop(): Promise<void> {
    await this.master.stop();
    await this.logging.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** One REQ exchange; resolves with the raw reply bytes (rejects after timeoutMs). */
export async function rawExchange(address: string, payload: Buffer, timeoutMs = 10_000): Promise<Buffer> {
  const sock = new zmq.Request({ linger: 0, receiveTimeout: timeoutMs, sendTimeout: timeoutMs });
  sock.connect(address);
  try {
    await sock.send(payload);
    const [reply] = await sock.receive();
    return reply;
  } finally {
    sock.close();
  }
}

/** One REQ exchange, the reply decoded. */
export async function rawRequest(address: string, payload: Buffer, timeoutMs = 10_000): Promise<unknown> {
  return decode(await rawExchange(address, payload, timeoutMs));
}

/** A minion made of channel calls: signs in once, then sends any aes load it is given. */
export class RawMinion {
  private readonly keys = generateKeyPair(1024);
  private readonly tok = makeTok(this.keys.privatePem);
  sessionKey?: string;

  constructor(
    readonly id: string,
    private readonly address: string,
  ) {}

  /** `_auth`; resolves with the master's answer kind. */
  async signIn(): Promise<string> {
    const { bytes, nonce } = buildAuthRequest({ id: this.id, publicPem: this.keys.publicPem });
    const reply = openAuthReply(await rawExchange(this.address, bytes), null, this.keys.privatePem, nonce);
    if (reply.kind === 'accepted') this.sessionKey = reply.sessionKey;
    return reply.kind;
  }

  /** The bytes of an aes request (to send, or to send twice). */
  build(load: Record<string, unknown>, opts: { ts?: number; nonce?: string } = {}): { bytes: Buffer; nonce: string } {
    if (!this.sessionKey) throw new Error(`${this.id} has not signed in`);
    return buildAesRequest({ id: this.id, sessionKey: this.sessionKey, load: { ...load, id: this.id }, tok: this.tok, ...opts });
  }

  /** Sends bytes built by build() and opens the answer ("bad load" comes back as a ProtocolError). */
  async exchange(req: { bytes: Buffer; nonce: string }): Promise<unknown> {
    return openAesReply(await rawExchange(this.address, req.bytes), this.sessionKey!, req.nonce);
  }

  send(load: Record<string, unknown>): Promise<unknown> {
    return this.exchange(this.build(load));
  }
}
