/**
 * RSA key files as Salt writes them, in one place: atomic writes (temp file + rename, so a crash
 * never leaves half a key) and the key pair of a master, a minion or `salt-key --gen-keys`.
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { randomBytes, type KeyObject } from 'node:crypto';
import * as path from 'node:path';
import { generateKeyPair, privateKeyFromPem, publicPemOf } from './rsa';

/**
 * Write `text` to `file` atomically with `mode`: a dot-named temp file beside it, fsync, rename.
 * `durable: false` skips the fsync, for files whose loss in a power cut costs nothing (a pending
 * key: the minion sends it again at its next sign-in). At a thousand new minions the fsyncs were
 * seconds of the master's time.
 */
export function writeFileAtomic(file: string, text: string, mode: number, durable = true): void {
  const tmp = tempBeside(file);
  const fd = openSync(tmp, 'wx', mode);
  try {
    fchmodSync(fd, mode); // the umask must not loosen or tighten what Salt expects
    writeSync(fd, text);
    if (durable) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}

/** The temp file beside `file` that an atomic write renames into place. */
function tempBeside(file: string): string {
  // The temp name does not embed the file's: an id may use all 255 bytes a file name can have.
  return path.join(path.dirname(file), `.tmp.${process.pid}.${randomBytes(6).toString('hex')}`);
}

/**
 * {@link writeFileAtomic} (always durable) off the event loop: the open, write, fsync and rename
 * run on libuv's threads, so a daemon keeps serving while the disk catches up. A minion caches its
 * master's key this way: at a storm of sign-ins on one host (the bench's simulated minions) the
 * fsyncs held the loop a millisecond each.
 */
export async function writeFileAtomicAsync(file: string, text: string, mode: number): Promise<void> {
  const tmp = tempBeside(file);
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.chmod(mode);
    await handle.writeFile(text);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(tmp);
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp);
    throw err;
  }
}

/** Salt compares keys after `clean_key`: stripped, line endings normalised. */
export function sameKey(a: string, b: string): boolean {
  return cleanKey(a) === cleanKey(b);
}

function cleanKey(text: string): string {
  return text
    .trim()
    .split(/\r?\n|\r/)
    .join('\n');
}

/** Salt's gen_keys modes: the private key readable by its owner only, the public key by all. */
export const PRIVATE_KEY_MODE = 0o400;
export const PUBLIC_KEY_MODE = 0o644;

export interface KeyPairFiles {
  privatePem: string;
  publicPem: string;
  privateKey: KeyObject;
  /** Whether this call generated the pair. */
  created: boolean;
}

/**
 * `<dir>/<name>.pem` and `<dir>/<name>.pub` as Salt's `gen_keys` leaves them (private 0400, public
 * 0644): generated when the private key is missing, kept otherwise; a missing public key is written
 * again from the private one. The public half is written first, so a crash in between leaves no
 * private key and the next call generates a whole new pair.
 *
 * @example
 * const { privateKey, created } = ensureKeyPair('/etc/salt/pki/master', 'master', 2048);
 */
export function ensureKeyPair(dir: string, name: string, keysize: number): KeyPairFiles {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pemFile = path.join(dir, `${name}.pem`);
  const pubFile = path.join(dir, `${name}.pub`);
  if (!existsSync(pemFile)) {
    const pair = generateKeyPair(keysize);
    writeFileAtomic(pubFile, pair.publicPem, PUBLIC_KEY_MODE);
    writeFileAtomic(pemFile, pair.privatePem, PRIVATE_KEY_MODE);
    return { ...pair, privateKey: privateKeyFromPem(pair.privatePem), created: true };
  }
  const privatePem = readFileSync(pemFile, 'utf8');
  const privateKey = privateKeyFromPem(privatePem);
  let publicPem: string;
  if (existsSync(pubFile)) {
    publicPem = readFileSync(pubFile, 'utf8');
  } else {
    publicPem = publicPemOf(privateKey);
    writeFileAtomic(pubFile, publicPem, PUBLIC_KEY_MODE);
  }
  return { privatePem, publicPem, privateKey, created: false };
}
