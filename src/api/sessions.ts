/**
 * salt-api's login sessions, as CherryPy's session tool keeps them for rest_cherrypy: the id a
 * client holds (cookie `session_id` or header `X-Auth-Token`) is 40 hex digits; the session holds
 * the Salt eauth token. Sessions live in memory by default (a restart forgets them, as Salt's),
 * or in files under `session_dir` (mode 0600) when configured, so that they survive a restart.
 *
 * Sessions are found by the SHA-256 of their id, never by the id itself: a look-up's timing can
 * only tell something about a digest, not about the secret a client holds (constant-time in
 * effect), and the files in `session_dir` are not bearer credentials.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

export interface Session {
  /** The Salt eauth token this session stands for. */
  token: string;
  /** Epoch seconds after which the session is gone unless used again. */
  expires: number;
}

const ID_RE = /^[0-9a-f]{40}$/;
const KEY_RE = /^[0-9a-f]{64}$/;

/** Where a session is kept: the SHA-256 of its id. */
function keyOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** A fresh session id: SHA-1 hex over random bytes, as CherryPy makes them. */
export function newSessionId(): string {
  return createHash('sha1').update(randomBytes(64)).digest('hex');
}

export class SessionStore {
  private readonly memory = new Map<string, Session>();

  constructor(
    /** Sliding lifetime in seconds (CherryPy's tools.sessions.timeout, 10 hours for salt-api). */
    private readonly timeoutSec: number,
    private readonly dir?: string,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Starts a session for an eauth token under the given id. */
  create(id: string, token: string): void {
    this.save(keyOf(id), { token, expires: this.now() + this.timeoutSec });
  }

  /** The live session of an id (renewed by the look-up), or undefined. */
  get(id: unknown): Session | undefined {
    if (typeof id !== 'string' || !ID_RE.test(id)) return undefined;
    const key = keyOf(id);
    const s = this.load(key);
    if (!s) return undefined;
    if (s.expires < this.now()) {
      this.drop(key);
      return undefined;
    }
    s.expires = this.now() + this.timeoutSec;
    this.save(key, s);
    return s;
  }

  delete(id: string): void {
    this.drop(keyOf(id));
  }

  private drop(key: string): void {
    this.memory.delete(key);
    if (this.dir && KEY_RE.test(key)) rmSync(join(this.dir, key), { force: true });
  }

  /** Drops every expired session (called now and then). */
  sweep(): void {
    const now = this.now();
    for (const [key, s] of this.memory) if (s.expires < now) this.memory.delete(key);
    if (!this.dir) return;
    for (const key of readdirSync(this.dir)) {
      if (!KEY_RE.test(key)) continue;
      const s = this.load(key);
      if (!s || s.expires < now) this.drop(key);
    }
  }

  private load(key: string): Session | undefined {
    const cached = this.memory.get(key);
    if (cached || !this.dir) return cached;
    try {
      const s = JSON.parse(readFileSync(join(this.dir, key), 'utf8')) as Session;
      if (typeof s.token !== 'string' || typeof s.expires !== 'number') return undefined;
      this.memory.set(key, s);
      return s;
    } catch {
      return undefined;
    }
  }

  private save(key: string, s: Session): void {
    this.memory.set(key, s);
    if (!this.dir) return;
    const path = join(this.dir, key);
    writeFileSync(`${path}.tmp`, JSON.stringify(s), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  }
}
