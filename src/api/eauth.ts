/**
 * External authentication backends as Salt's `external_auth` names them (salt/auth/*.py):
 * `file` (text and htpasswd files), `auto` (always approves; for tests) and `pam`.
 *
 *   const backend = eauthBackend('file', config.external_auth);
 *   await backend.auth('apiuser', 'apipass'); // true
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { BrineError } from '../core/errors';

/** The codes an {@link EauthError} carries. */
export type EauthErrorCode = 'BAD_EAUTH_CONFIG' | 'UNSUPPORTED_HASH' | 'EAUTH_FILE_UNREADABLE' | 'PAM_UNAVAILABLE';
export class EauthError extends BrineError<EauthErrorCode> {}

export interface EauthBackend {
  readonly name: string;
  /** Whether the credentials are good. A misconfigured backend throws EauthError. */
  auth(username: string, password: string): Promise<boolean>;
}

/** Equal strings, compared in constant time. */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

/** The `^option` settings of one eauth block (Salt strips the caret). */
function caretOptions(block: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(block)) if (k.startsWith('^')) out[k.slice(1)] = v;
  return out;
}

const DIGESTS: Record<string, string> = {
  md5: 'md5',
  sha1: 'sha1',
  sha224: 'sha224',
  sha256: 'sha256',
  sha384: 'sha384',
  sha512: 'sha512',
};

/** salt/auth/file.py `_text`: `user:password` lines (fields and separator configurable), plaintext or a hex digest. */
async function checkTextFile(o: Record<string, unknown>, username: string, password: string): Promise<boolean> {
  const sep = typeof o.field_separator === 'string' ? o.field_separator : ':';
  const userField = Number(o.username_field ?? 1) - 1;
  const passField = Number(o.password_field ?? 2) - 1;
  const hashtype = String(o.hashtype ?? 'plaintext');
  if (hashtype !== 'plaintext' && !DIGESTS[hashtype]) {
    throw new EauthError('BAD_EAUTH_CONFIG', `external_auth:file: ^hashtype '${hashtype}' is not supported`, {
      hint: `use plaintext or one of ${Object.keys(DIGESTS).join(', ')}`,
    });
  }
  const text = await readFile(String(o.filename), 'utf8');
  for (const line of text.split('\n')) {
    const fields = line.trim().split(sep);
    if (fields[userField] === undefined || fields[passField] === undefined) return false;
    if (fields[userField] !== username) continue;
    const given = hashtype === 'plaintext' ? password : createHash(DIGESTS[hashtype]).update(password).digest('hex');
    // Salt stops at the first line of the user, right or wrong.
    return safeEqual(fields[passField], given);
  }
  return false;
}

/** One htpasswd entry against a password: bcrypt, Apache MD5 ($apr1$), {SHA} and plaintext, as passlib's HtpasswdFile reads them. */
export async function checkHtpasswdHash(hash: string, password: string): Promise<boolean> {
  if (/^\$2[abxy]?\$/.test(hash)) {
    return bcrypt.compare(password, hash);
  }
  if (hash.startsWith('$apr1$') || hash.startsWith('$1$')) {
    return safeEqual(apacheMd5(password, hash), hash);
  }
  if (hash.startsWith('{SHA}')) {
    return safeEqual(`{SHA}${createHash('sha1').update(password).digest('base64')}`, hash);
  }
  if (hash.startsWith('$')) {
    throw new EauthError(
      'UNSUPPORTED_HASH',
      `htpasswd hash scheme ${hash.split('$')[1] ? `$${hash.split('$')[1]}$` : hash.slice(0, 4)} is not supported`,
      {
        hint: 'write the file with htpasswd -B (bcrypt) or -m (MD5)',
      },
    );
  }
  return safeEqual(hash, password);
}

async function checkHtpasswdFile(o: Record<string, unknown>, username: string, password: string): Promise<boolean> {
  const text = await readFile(String(o.filename), 'utf8');
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i <= 0 || line.slice(0, i) !== username) continue;
    return checkHtpasswdHash(line.slice(i + 1).trim(), password);
  }
  return false;
}

function fileBackend(block: Record<string, unknown>): EauthBackend {
  const o = caretOptions(block);
  if (typeof o.filename !== 'string' || o.filename === '') {
    throw new EauthError('BAD_EAUTH_CONFIG', 'external_auth:file needs ^filename, the path of the password file');
  }
  const filetype = String(o.filetype ?? 'text').toLowerCase();
  if (filetype === 'htdigest') {
    throw new EauthError('BAD_EAUTH_CONFIG', 'external_auth:file: ^filetype htdigest is not supported', {
      hint: 'use ^filetype: htpasswd or text',
    });
  }
  const check = filetype === 'htpasswd' ? checkHtpasswdFile : checkTextFile;
  return {
    name: 'file',
    async auth(username, password) {
      try {
        return await check(o, username, password);
      } catch (err) {
        if (err instanceof EauthError) throw err;
        throw new EauthError('EAUTH_FILE_UNREADABLE', `external_auth:file: cannot read ${String(o.filename)}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    },
  };
}

/**
 * PAM needs a native binding to libpam, which brine does not ship; saying so is better than
 * refusing every login silently.
 */
function pamBackend(): EauthBackend {
  return {
    name: 'pam',
    auth() {
      return Promise.reject(
        new EauthError('PAM_UNAVAILABLE', 'eauth pam is not available in brine: it needs a native libpam binding, which is not installed', {
          hint: 'use external_auth: file with ^filetype: htpasswd (or text) instead',
        }),
      );
    },
  };
}

/** The backend for an eauth name, configured from the master's `external_auth`. */
export function eauthBackend(name: string, externalAuth: Record<string, unknown>): EauthBackend | undefined {
  if (!Object.hasOwn(externalAuth, name)) return undefined;
  const block = externalAuth[name];
  const config = typeof block === 'object' && block !== null && !Array.isArray(block) ? (block as Record<string, unknown>) : {};
  switch (name) {
    case 'file':
      return fileBackend(config);
    case 'auto':
      return { name: 'auto', auth: async () => true };
    case 'pam':
      return pamBackend();
    default:
      return undefined;
  }
}
