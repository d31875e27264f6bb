/**
 * Salt's LoadAuth (salt/auth/__init__.py) for salt-api: checks credentials against an eauth
 * backend, mints eauth tokens and answers what a token's user may do.
 *
 * Tokens are kept as Salt's `localfs` token store keeps them (salt/tokens/localfs.py): one file
 * per token in `token_dir`, named by the token (64 hex digits of a SHA-256 over 512 random bytes),
 * holding the msgpack of the token data, mode 0600. So they survive a salt-api restart, as Salt's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '../core/protocol/msgpack';
import { fillAuthList, type AuthList } from './acl';
import { eauthBackend, EauthError, safeEqual } from './eauth';

export interface TokenData {
  start: number;
  expire: number;
  name: string;
  eauth: string;
  token: string;
  groups?: string[];
}

export interface Credentials {
  username?: unknown;
  password?: unknown;
  eauth?: unknown;
}

export interface LoadAuthOptions {
  externalAuth: Record<string, unknown>;
  /** Seconds a token lives (Salt's token_expire, default 12 hours). */
  tokenExpire: number;
  tokenDir: string;
  log?: { warning(msg: string): void; error(msg: string): void };
  now?: () => number;
}

const TOKEN_RE = /^[0-9a-f]{64}$/;

export class LoadAuth {
  private readonly now: () => number;

  constructor(private readonly opts: LoadAuthOptions) {
    this.now = opts.now ?? (() => Date.now() / 1000);
  }

  /** The eauth config block of a backend (its users and their permissions), or undefined when not enabled. */
  eauthConfig(eauth: string): Record<string, unknown> | undefined {
    if (!Object.hasOwn(this.opts.externalAuth, eauth)) return undefined;
    const block = this.opts.externalAuth[eauth];
    return typeof block === 'object' && block !== null && !Array.isArray(block) ? (block as Record<string, unknown>) : {};
  }

  /** authenticate_eauth: are these credentials good for an enabled backend? A broken backend is logged and refuses. */
  async authenticate(creds: Credentials): Promise<boolean> {
    if (typeof creds.eauth !== 'string' || typeof creds.username !== 'string' || typeof creds.password !== 'string') return false;
    const backend = eauthBackend(creds.eauth, this.opts.externalAuth);
    if (!backend) {
      this.opts.log?.warning(`The eauth system "${creds.eauth}" is not enabled`);
      return false;
    }
    try {
      if (await backend.auth(creds.username, creds.password)) return true;
    } catch (err) {
      if (!(err instanceof EauthError)) throw err;
      this.opts.log?.error(`${err.message}${err.hint ? ` (${err.hint})` : ''}`);
      return false;
    }
    this.opts.log?.warning('Authentication failure of type "eauth" occurred.');
    return false;
  }

  /** mk_token: a new token for good credentials, null otherwise. */
  async mkToken(creds: Credentials): Promise<TokenData | null> {
    if (!(await this.authenticate(creds))) return null;
    const start = this.now();
    const data: TokenData = {
      start,
      expire: start + this.opts.tokenExpire,
      name: String(creds.username),
      eauth: String(creds.eauth),
      token: '',
    };
    mkdirSync(this.opts.tokenDir, { recursive: true, mode: 0o700 });
    for (;;) {
      const token = createHash('sha256').update(randomBytes(512)).digest('hex');
      const path = join(this.opts.tokenDir, token);
      data.token = token;
      try {
        writeFileSync(`${path}.tmp`, encode(data), { mode: 0o600, flag: 'wx' });
        chmodSync(`${path}.tmp`, 0o600);
        renameSync(`${path}.tmp`, path);
        return data;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  /** get_tok: the data of a live token; an expired or unreadable token is removed and answers null. */
  getToken(token: unknown): TokenData | null {
    if (typeof token !== 'string' || !TOKEN_RE.test(token)) return null;
    const path = join(this.opts.tokenDir, token);
    let data: unknown;
    try {
      data = decode(readFileSync(path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      this.opts.log?.warning(`Failed to load token ${token.slice(0, 8)}... - removing broken/empty file.`);
      this.rmToken(token);
      return null;
    }
    const t = data as Partial<TokenData> | null;
    if (!t || typeof t !== 'object' || typeof t.expire !== 'number' || typeof t.name !== 'string' || typeof t.eauth !== 'string') {
      this.rmToken(token);
      return null;
    }
    // The file was found by its name; the token it holds is compared in constant time as well.
    if (typeof t.token === 'string' && !safeEqual(t.token, token)) return null;
    if (t.expire < this.now()) {
      this.rmToken(token);
      return null;
    }
    return { ...(t as TokenData), token };
  }

  rmToken(token: string): void {
    if (TOKEN_RE.test(token)) rmSync(join(this.opts.tokenDir, token), { force: true });
  }

  /** get_auth_list: what the token's user may do, from external_auth. */
  authList(token: TokenData): AuthList {
    const config = this.eauthConfig(token.eauth);
    if (!config) return [];
    return fillAuthList(config, token.name, token.groups ?? []);
  }
}
