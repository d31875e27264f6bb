/**
 * salt-api's login sessions, as CherryPy's session tool keeps them for rest_cherrypy: the id a
 * client holds (cookie `session_id` or header `X-Auth-Token`) is 40 hex digits; the session holds
 * the Salt eauth token. Sessions live in memory by default (a restart forgets them, as Salt's),
 * or in files under `session_dir` (mode 0600) when configured, so that they survive a restart.
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
    this.save(id, { token, expires: this.now() + this.timeoutSec });
  }

  /** The live session of an id (renewed by the look-up), or undefined. */
  get(id: unknown): Session | undefined {
    if (typeof id !== 'string' || !ID_RE.test(id)) return undefined;
    const s = this.load(id);
    if (!s) return undefined;
    if (s.expires < this.now()) {
      this.delete(id);
      return undefined;
    }
    s.expires = this.now() + this.timeoutSec;
    this.save(id, s);
    return s;
  }

  delete(id: string): void {
    this.memory.delete(id);
    if (this.dir && ID_RE.test(id)) rmSync(join(this.dir, id), { force: true });
  }

  /** Drops every expired session (called now and then). */
  sweep(): void {
    const now = this.now();
    for (const [id, s] of this.memory) if (s.expires < now) this.memory.delete(id);
    if (!this.dir) return;
    for (const id of readdirSync(this.dir)) {
      if (!ID_RE.test(id)) continue;
      const s = this.load(id);
      if (!s || s.expires < now) this.delete(id);
    }
  }

  private load(id: string): Session | undefined {
    const cached = this.memory.get(id);
    if (cached || !this.dir) return cached;
    try {
      const s = JSON.parse(readFileSync(join(this.dir, id), 'utf8')) as Session;
      if (typeof s.token !== 'string' || typeof s.expires !== 'number') return undefined;
      this.memory.set(id, s);
      return s;
    } catch {
      return undefined;
    }
  }

  private save(id: string, s: Session): void {
    this.memory.set(id, s);
    if (!this.dir) return;
    const path = join(this.dir, id);
    writeFileSync(`${path}.tmp`, JSON.stringify(s), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  }
}
