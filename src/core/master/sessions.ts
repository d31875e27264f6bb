import { readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Crypticle } from '../crypto/crypticle';
import { writePrivateFile } from '../private-file';
import { sameKey } from '../crypto/key-files';

/** What the master holds for one signed-in minion. */
export interface MinionSession {
  id: string;
  /** The session key (its text is `crypticle.keyString()`, not held twice: 10,000 sessions). */
  crypticle: Crypticle;
  /**
   * The minion's public key as the PEM text it signed in with (or its accepted key file's, for a
   * session restored after a restart). Text, not a KeyObject: Node's costs about 2 KiB of native
   * memory each, 21 MiB at 10,000 minions, and the key is needed only to check the session's
   * first `tok` and to seal `_pillar` replies.
   */
  publicPem: string;
  /** Date.now() when this session key was made. */
  createdAt: number;
  /**
   * The key this one replaced when it expired, and until when requests sealed with it are still
   * opened (they were in flight while the minion signed in again).
   */
  previous?: { crypticle: Crypticle; until: number };
  /**
   * The minion's X9.31 `tok` once one has been verified, as latin1 text: it is deterministic per
   * key, so later requests need only a byte comparison, not an RSA operation. Text because a
   * string of 256 bytes costs 272 where a Buffer of its own cost about 520 with its ArrayBuffer
   * and native backing store (2.4 MiB at 10,000 minions).
   */
  tok?: string;
}

export interface SessionOptions {
  /** Salt's `publish_session` in seconds: how long a minion keeps one session key (default 86400). */
  publishSession?: number;
  /** How long requests sealed with a replaced key are still opened, in ms (default 60 s). */
  graceMs?: number;
  now?: () => number;
  /**
   * Salt's `<cachedir>/sessions`: each key is written there, so a restarted master still reads
   * the requests of minions that signed in before (a Salt minion does not sign in again until a
   * request fails). Needs `acceptedPem`.
   */
  dir?: string;
  /** The accepted public key of an id as PEM text (undefined when not accepted; throws for an invalid id). */
  acceptedPem?: (id: string) => string | undefined;
}

/**
 * Signed-in minions by id, with Salt 3007's session keys: one key per minion id, handed out again
 * at every sign-in until it is `publish_session` old (Salt's `ReqServerChannel.session_key`). A
 * Salt minion signs in from several processes (each job process has its own channel), and any
 * minion signs in again when the publish key rotates: with a fresh key per sign-in, the requests
 * its other channels had in flight no longer decrypt ("message HMAC does not match").
 * A session ends when the minion's key is deleted or rejected; its next request then gets
 * "bad load" and its next sign-in a new key.
 */
export class Sessions {
  private readonly byId = new Map<string, MinionSession>();
  private readonly lifetimeMs: number;
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SessionOptions = {}) {
    this.lifetimeMs = (options.publishSession ?? 86400) * 1000;
    this.graceMs = options.graceMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The session for a minion that just signed in: the one it has (same public key, not expired),
   * or a new key. An expired key stays readable for the grace period; another public key (open_mode
   * replaced it) starts afresh.
   */
  open(id: string, publicPem: string): MinionSession {
    const now = this.now();
    const known = this.byId.get(id);
    const sameMinion = known !== undefined && sameKey(known.publicPem, publicPem);
    if (sameMinion && now - known.createdAt < this.lifetimeMs) return known;
    const sessionKey = Crypticle.generateKeyString();
    const session: MinionSession = { id, crypticle: new Crypticle(sessionKey), publicPem, createdAt: now };
    if (sameMinion) {
      session.previous = { crypticle: known.crypticle, until: now + this.graceMs };
      session.tok = known.tok;
    }
    this.byId.set(id, session);
    this.save(id, sessionKey, now);
    return session;
  }

  /** The live session of `id`, restored from the sessions folder after a restart when still valid. */
  get(id: string): MinionSession | undefined {
    return this.byId.get(id) ?? this.restore(id);
  }

  /**
   * Whether the minion has signed in or sent a request since this master started (a key kept on
   * disk from before a restart does not count: the minion may be gone).
   */
  connected(id: string): boolean {
    return this.byId.has(id);
  }

  private save(id: string, sessionKey: string, createdAt: number): void {
    const dir = this.options.dir;
    if (!dir) return;
    const tmp = join(dir, `.${id}.${process.pid}`);
    writePrivateFile(tmp, sessionKey);
    // The file's mtime is the session's age after a restart: stamp it with the session's own clock.
    utimesSync(tmp, createdAt / 1000, createdAt / 1000);
    renameSync(tmp, join(dir, id));
  }

  private restore(id: string): MinionSession | undefined {
    const { dir, acceptedPem } = this.options;
    if (!dir || !acceptedPem) return undefined;
    try {
      const publicPem = acceptedPem(id);
      if (publicPem === undefined) return undefined;
      const file = join(dir, id);
      const createdAt = statSync(file).mtimeMs;
      if (this.now() - createdAt >= this.lifetimeMs) return undefined;
      const sessionKey = readFileSync(file, 'latin1').trim();
      const session: MinionSession = { id, crypticle: new Crypticle(sessionKey), publicPem, createdAt };
      this.byId.set(id, session);
      return session;
    } catch {
      return undefined; // an invalid id, no file, or a damaged key: the minion signs in again
    }
  }

  /** The replaced key of this session, while requests sealed with it are still accepted. */
  previousKey(session: MinionSession): Crypticle | undefined {
    const prev = session.previous;
    if (!prev) return undefined;
    if (this.now() >= prev.until) {
      session.previous = undefined;
      return undefined;
    }
    return prev.crypticle;
  }

  end(id: string): boolean {
    if (this.options.dir) {
      try {
        rmSync(join(this.options.dir, id), { force: true });
      } catch {
        // nothing to remove
      }
    }
    return this.byId.delete(id);
  }
}
