/**
 * A master made of the real channel functions and transport, small enough to stop, restart and
 * misbehave on purpose in minion tests. Keys are the shared vector keys.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { stringify } from 'yaml';
import { Daemon, REPO } from '../../../scripts/cluster';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import {
  BAD_LOAD_REPLY,
  buildAesReply,
  buildAuthReply,
  buildPublication,
  buildSendPrivateReply,
  minionMessageSigned,
  openAesRequest,
  openAuthRequest,
} from '../../../src/core/channel';
import { decode } from '../../../src/core/protocol/msgpack';
import { requestedHashes } from '../../../src/core/master/master-rsa';
import { PublishServer, RequestServer } from '../../../src/core/transport/zeromq';
import type { MinionSettings } from '../../../src/core/minion/job-loop';
import { keyPem } from '../protocol/wire-vectors';

/**
 * A real salt-minion process, id web1, whose master is a fake one on 127.0.0.1:retPort, with its
 * config and files under root (its own process, so that its RSS is its own).
 */
export function spawnMinionBehind(root: string, retPort: number, name = 'minion'): Daemon {
  const configDir = join(root, 'etc');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, 'minion'),
    stringify({
      root_dir: join(root, 'minion'),
      id: 'web1',
      master: '127.0.0.1',
      master_port: retPort,
      keysize: 1024,
      acceptance_wait_time: 1,
      random_reauth_delay: 0,
      log_level_logfile: 'warning',
    }),
  );
  return new Daemon(
    name,
    spawn(process.execPath, [join(REPO, 'bin', 'salt-minion'), '-c', configDir, '-l', 'warning'], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

/**
 * A temporary root for each test (`make()`) and the test's clean-ups, run newest first after it,
 * then the root removed: registers its own afterEach.
 */
export function perTestRoot(prefix: string): { make: () => string; cleanups: Array<() => Promise<void>> } {
  let root: string | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });
  return { make: () => (root = mkdtempSync(join(tmpdir(), prefix))), cleanups };
}

/** Minion web1's pki folder under `root`, holding the shared vector keys; its path. */
export function web1Pki(root: string): string {
  const pki = join(root, 'pki');
  mkdirSync(pki, { recursive: true, mode: 0o700 });
  writeFileSync(join(pki, 'minion.pem'), keyPem('web1.pem'), { mode: 0o600 });
  writeFileSync(join(pki, 'minion.pub'), keyPem('web1.pub'));
  return pki;
}

/** An in-process minion web1's settings against a fake master on `retPort`: quick waits and retries. */
export function web1Settings(retPort: number, pki: string): MinionSettings {
  return {
    id: 'web1',
    master: '127.0.0.1',
    master_port: retPort,
    pki_dir: pki,
    keysize: 2048,
    acceptance_wait_time: 1,
    auth_timeout: 5,
    recon_default: 100,
    recon_max: 200,
    recon_randomize: true,
    return_retry_timer: 1,
    return_retry_tries: 3,
  };
}

export interface FakeMasterOptions {
  retPort: number;
  pubPort: number;
  /** `_auth` requests to leave unanswered before answering (the busy master). */
  ignoreAuth?: number;
  /**
   * Request handlers taking requests in turn, each with its own cache of session keys, as a Salt
   * master's workers (its ROUTER hands requests round robin to them); 1 unless set.
   */
  workers?: number;
  /** Salt's `sign_pub_messages` of the master: false publishes without `sig` and `sig_algo`. Default true. */
  signPublications?: boolean;
}

export class FakeMaster {
  readonly masterPem = keyPem('master.pem');
  readonly masterPub = keyPem('master.pub');
  readonly aesKey = Crypticle.generateKeyString();
  /** Arrival time (performance.now()) of every `_auth` request, answered or not. */
  readonly authTimes: number[] = [];
  /** The `enc_algo` and `sig_algo` of every `_auth` and `_pillar` request, in order; the replies use them, as Salt's. */
  readonly algorithms: Array<{ cmd: string; enc_algo: unknown; sig_algo: unknown }> = [];
  /** The `cmd` of every aes request the master could open, in order. */
  readonly commands: string[] = [];
  /** Whether each of those carried a `sig` (minion_sign_messages) that verifies against the minion key; null: none. */
  readonly signatures: Array<{ cmd: string; verified: boolean | null }> = [];
  readonly returns: Array<{ id: string; jid: string; return: unknown; at: number }> = [];
  readonly errors: unknown[] = [];
  /** Each minion's session key as the master's files hold it. */
  private readonly fileKeys = new Map<string, string>();
  /** Each signed-in minion's public key. */
  private readonly pubs = new Map<string, string>();
  /** Each worker's own cache of session keys (Salt's ReqServerChannel.sessions). */
  private readonly workerKeys: Array<Map<string, string>>;
  private turn = 0;
  private readonly requests = new RequestServer();
  private readonly publisher = new PublishServer();
  private ignoreAuth: number;
  private returnWaiters: Array<() => void> = [];

  constructor(private readonly options: FakeMasterOptions) {
    this.ignoreAuth = options.ignoreAuth ?? 0;
    this.workerKeys = Array.from({ length: options.workers ?? 1 }, () => new Map<string, string>());
  }

  /**
   * What Salt 3007's master does when two sign-ins of one new minion reach two workers at once:
   * `worker` keeps a session key for `id` that is not the one the others serve.
   */
  splitSession(worker: number, id: string): void {
    if (!this.fileKeys.has(id)) this.fileKeys.set(id, Crypticle.generateKeyString());
    this.workerKeys[worker].set(id, Crypticle.generateKeyString());
  }

  /** What restarting a Salt master does: every worker reads the session keys from the files again. */
  forgetWorkerKeys(): void {
    for (const keys of this.workerKeys) keys.clear();
  }

  /** The worker that takes the next request. */
  get nextWorker(): number {
    return this.turn % this.workerKeys.length;
  }

  async start(): Promise<void> {
    await this.publisher.bind(`tcp://127.0.0.1:${this.options.pubPort}`);
    await this.requests.bind(`tcp://127.0.0.1:${this.options.retPort}`);
    // A reply to a peer that went away (or after stop()) fails to send: recorded, not thrown.
    this.requests.serve(
      async (payload) => this.handle(payload),
      (err) => this.errors.push(err),
    );
  }

  async stop(): Promise<void> {
    await this.requests.close();
    await this.publisher.close();
  }

  /** Sends any frames on the publish port (garbage, or a job sealed with another key). */
  publishRaw(frames: Buffer[]): Promise<void> {
    return this.publisher.publish(frames);
  }

  publish(job: Record<string, unknown>): Promise<void> {
    const key = this.options.signPublications === false ? null : this.masterPem;
    return this.publisher.publish([buildPublication(this.aesKey, key, job)]);
  }

  /**
   * Publishes `job` and resolves with its return. A PUB socket drops what it sends before it has
   * read the subscriber's SUBSCRIBE, and nothing says when that happened (a reconnected minion's
   * handshake is not enough), so the same job goes out again every `everyMs` until it returns.
   */
  async publishUntilReturned(job: Record<string, unknown>, everyMs = 200): Promise<{ at: number; return: unknown }> {
    const jid = String(job.jid);
    const timer = setInterval(() => void this.publish(job), everyMs);
    try {
      await this.publish(job);
      return await this.waitForReturn(jid);
    } finally {
      clearInterval(timer);
    }
  }

  /** Resolves when a return for `jid` has arrived. */
  async waitForReturn(jid: string): Promise<{ at: number; return: unknown }> {
    for (;;) {
      const found = this.returns.find((r) => r.jid === jid);
      if (found) return found;
      await new Promise<void>((resolve) => this.returnWaiters.push(resolve));
    }
  }

  private handle(payload: Buffer): Buffer | null {
    const keys = this.workerKeys[this.turn++ % this.workerKeys.length];
    const env = decode(payload) as { enc: string; load: Record<string, unknown> };
    if (env.enc === 'clear') {
      this.authTimes.push(performance.now());
      if (this.ignoreAuth > 0) {
        this.ignoreAuth--;
        return null;
      }
      const hashes = requestedHashes(env.load.enc_algo, env.load.sig_algo, '_auth');
      this.algorithms.push({ cmd: '_auth', enc_algo: env.load.enc_algo, sig_algo: env.load.sig_algo });
      const { request, token } = openAuthRequest(payload, this.masterPem);
      // Salt's session_key(): the worker's own cached key, else the one on file (made if none).
      if (!this.fileKeys.has(request.id)) this.fileKeys.set(request.id, Crypticle.generateKeyString());
      const sessionKey = keys.get(request.id) ?? this.fileKeys.get(request.id)!;
      keys.set(request.id, sessionKey);
      this.pubs.set(request.id, request.pub);
      return buildAuthReply(
        this.masterPem,
        {
          kind: 'accepted',
          nonce: request.nonce,
          minionPublicKey: request.pub,
          publishPort: this.options.pubPort,
          aesKey: this.aesKey,
          sessionKey,
          token,
          masterPublicPem: this.masterPub,
          encHash: hashes.encHash,
        },
        hashes.sigHash,
      );
    }
    let opened;
    try {
      opened = openAesRequest(payload, (id) => {
        const [sessionKey, publicKey] = [keys.get(id) ?? this.fileKeys.get(id), this.pubs.get(id)];
        return sessionKey !== undefined && publicKey !== undefined ? { sessionKey, publicKey } : undefined;
      });
    } catch {
      return BAD_LOAD_REPLY;
    }
    this.commands.push(String(opened.load.cmd));
    const sig = opened.load.sig;
    this.signatures.push({
      cmd: String(opened.load.cmd),
      verified: sig === undefined ? null : minionMessageSigned(this.pubs.get(opened.id)!, opened.plain, sig),
    });
    const session = { sessionKey: keys.get(opened.id) ?? this.fileKeys.get(opened.id)!, pub: this.pubs.get(opened.id)! };
    if (opened.load.cmd === '_pillar') {
      const envelope = env as unknown as { enc_algo: unknown; sig_algo: unknown };
      this.algorithms.push({ cmd: '_pillar', enc_algo: envelope.enc_algo, sig_algo: envelope.sig_algo });
      return buildSendPrivateReply(
        this.masterPem,
        session.pub,
        opened.nonce,
        {},
        requestedHashes(envelope.enc_algo, envelope.sig_algo, '_pillar'),
      );
    }
    if (opened.load.cmd === '_return') {
      this.returns.push({ id: opened.id, jid: String(opened.load.jid), return: opened.load.return, at: performance.now() });
      this.returnWaiters.splice(0).forEach((wake) => wake());
    }
    return buildAesReply(session.sessionKey, opened.nonce, null);
  }
}
