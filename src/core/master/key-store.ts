/**
 * The master's key store: Salt's pki_dir layout, shared with `salt-key` in another process.
 *
 *   <pki_dir>/master.pem (0400), master.pub
 *   <pki_dir>/minions/<id>           accepted
 *   <pki_dir>/minions_pre/<id>       unaccepted (pending)
 *   <pki_dir>/minions_rejected/<id>  rejected
 *   <pki_dir>/minions_denied/<id>    denied: a second, different key offered for a known id
 *
 * Every file holds the minion's public key PEM. Nothing is kept in memory that another process could
 * make stale: reads stat the file and re-read it only when it changed (see KeyFileCache).
 */
import { MasterError } from './master-errors';
import { mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../errors';
import { fingerprint, publicKeyFromPem } from '../crypto/rsa';
import { fnmatch } from '../pycompat';
import { KeyFileCache, isMissing, statOrUndefined } from './key-files';
import { ensureKeyPair, sameKey, writeFileAtomic, type KeyPairFiles } from '../crypto/key-files';
import { assertMinionId } from '../protocol/minion-id';

export type KeyState = 'accepted' | 'pending' | 'rejected' | 'denied';

/** Salt's order of the state directories (`list_keys`, `--out json`). */
export const KEY_STATES: readonly KeyState[] = ['accepted', 'pending', 'rejected', 'denied'];

/** The directory under pki_dir that holds each state. */
/**
 * The status names Salt's `salt-key --list` and wheel `key.list` take, and the key state each
 * names (salt/key.py); `all` is handled by each caller. Look up with Object.hasOwn: the name
 * comes from the user.
 */
export const KEY_STATUS_NAMES: Readonly<Record<string, KeyState>> = {
  acc: 'accepted',
  accepted: 'accepted',
  pre: 'pending',
  un: 'pending',
  unaccepted: 'pending',
  rej: 'rejected',
  rejected: 'rejected',
  den: 'denied',
  denied: 'denied',
};

export const STATE_DIRS: Readonly<Record<KeyState, string>> = {
  accepted: 'minions',
  pending: 'minions_pre',
  rejected: 'minions_rejected',
  denied: 'minions_denied',
};

export type KeyListing = Record<KeyState, string[]>;
/** Matched ids per state; only states with at least one match are present. */
export type KeyMatches = Partial<Record<KeyState, string[]>>;

/** What the master answers a minion's `_auth` with, as decided by the key store. */
export type AuthDecision =
  /** `autoAccepted`: this sign-in accepted the key (auto_accept or autosign_file). */
  | { state: 'accepted'; autoAccepted?: true }
  | { state: 'pending' }
  /** `autoRejected`: this sign-in rejected the key (autoreject_file); `wasPending`: it had waited in minions_pre. */
  | { state: 'rejected'; autoRejected?: true; wasPending?: boolean }
  | { state: 'denied'; knownState: 'accepted' | 'pending'; knownFingerprint: string; offeredFingerprint: string };

export type MasterKeyFiles = KeyPairFiles;

export interface KeyStoreOptions {
  pkiDir: string;
  /** Glob matcher for find(); Python fnmatch semantics by default. */
  matcher?: (pattern: string, name: string) => boolean;
}

export class KeyStore {
  readonly pkiDir: string;
  private readonly matcher: (pattern: string, name: string) => boolean;
  private readonly files = new KeyFileCache();

  constructor(options: KeyStoreOptions) {
    if (typeof options?.pkiDir !== 'string' || options.pkiDir === '') {
      throw new MasterError('BAD_PKI_DIR', 'KeyStore needs a pkiDir');
    }
    this.pkiDir = path.resolve(options.pkiDir);
    this.matcher = options.matcher ?? fnmatch;
  }

  /** Create pki_dir (0700) and the four state directories if missing. */
  ensureLayout(): void {
    mkdirSync(this.pkiDir, { recursive: true, mode: 0o700 });
    for (const state of KEY_STATES) mkdirSync(this.dir(state), { recursive: true, mode: 0o700 });
  }

  /**
   * `salt-key --gen-keys NAME`: NAME.pem and NAME.pub in `dir`, written as the master's own pair
   * is; an existing pair is kept.
   */
  static genKeys(dir: string, name: string, keysize: number): KeyPairFiles {
    return ensureKeyPair(dir, name, keysize);
  }

  /** Load master.pem/master.pub, generating them (and the layout) on first start. */
  ensureMasterKeys(keysize = 2048): MasterKeyFiles {
    this.ensureLayout();
    return ensureKeyPair(this.pkiDir, 'master', keysize);
  }

  /** Ids in one state, or in every state; sorted ignoring case as Salt does; dot files skipped. */
  list(state: KeyState): string[];
  list(state: 'all'): KeyListing;
  list(state: KeyState | 'all'): string[] | KeyListing {
    if (state === 'all') {
      return {
        accepted: this.list('accepted'),
        pending: this.list('pending'),
        rejected: this.list('rejected'),
        denied: this.list('denied'),
      };
    }
    let names: string[];
    try {
      names = readdirSync(this.dir(state));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    return sortIgnoreCase(names.filter((n) => !n.startsWith('.')));
  }

  /** Local key files in pki_dir (`*.pem`, `*.pub`), as `salt-key -F` lists them. */
  localKeys(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.pkiDir);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    return sortIgnoreCase(names.filter((n) => n.endsWith('.pem') || n.endsWith('.pub')));
  }

  /**
   * Ids matching a glob (or a comma-separated list of globs) in the given states, like Salt's
   * `name_match`.
   */
  find(pattern: string, states: readonly KeyState[] = KEY_STATES): KeyMatches {
    const matches = this.globTest(pattern);
    const found: KeyMatches = {};
    for (const state of states) {
      const ids = this.list(state).filter(matches);
      if (ids.length > 0) found[state] = ids;
    }
    return found;
  }

  /** Local key files (master.pem, ...) matching a glob or comma list of globs. */
  findLocal(pattern: string): string[] {
    return this.localKeys().filter(this.globTest(pattern));
  }

  /** The state of a minion's key; when it is in several (denied + another), the non-denied one. */
  state(id: string): KeyState | undefined {
    assertMinionId(id);
    return KEY_STATES.find((s) => this.files.read(this.file(s, id)) !== undefined);
  }

  /** The key PEM text stored for `id` in `state` (or in its current state). */
  publicKey(id: string, state?: KeyState): string | undefined {
    const where = state ?? this.state(id);
    if (where === undefined) return undefined;
    assertMinionId(id);
    return this.files.read(this.file(where, id));
  }

  /**
   * The accepted key of `id` as the PEM text in its file, or undefined when it is not accepted (any
   * more): one stat when the file is unchanged.
   */
  acceptedPem(id: string): string | undefined {
    assertMinionId(id);
    return this.files.read(this.file('accepted', id));
  }

  /** Fingerprint of a minion key (in `state`, or its current state) as `salt-key -f` prints it. */
  fingerprint(id: string, hash = 'sha256', state?: KeyState): string | undefined {
    const pem = this.publicKey(id, state);
    return pem === undefined ? undefined : fingerprint(pem, hash);
  }

  /** Fingerprint of a local key file such as `master.pem`. */
  localFingerprint(name: string, hash = 'sha256'): string | undefined {
    assertMinionId(name);
    const pem = this.files.read(path.join(this.pkiDir, name));
    return pem === undefined ? undefined : fingerprint(pem, hash);
  }

  /**
   * Accept the keys of `ids` found in the `from` states (pending only, by default). Keys that are not
   * valid RSA public keys stay where they are and are reported as invalid, like Salt does.
   */
  accept(ids: readonly string[], from: readonly KeyState[] = ['pending']): { accepted: string[]; invalid: string[] } {
    const accepted: string[] = [];
    const invalid: string[] = [];
    for (const id of ids) {
      const source = this.locate(id, from);
      if (source === undefined) continue;
      try {
        publicKeyFromPem(this.files.read(this.file(source, id)) ?? '');
      } catch {
        invalid.push(id);
        continue;
      }
      if (this.move(id, source, 'accepted')) accepted.push(id);
    }
    return { accepted, invalid };
  }

  /** Reject the keys of `ids` found in the `from` states (pending only, by default). */
  reject(ids: readonly string[], from: readonly KeyState[] = ['pending']): string[] {
    const rejected: string[] = [];
    for (const id of ids) {
      const source = this.locate(id, from);
      if (source !== undefined && this.move(id, source, 'rejected')) rejected.push(id);
    }
    return rejected;
  }

  /** Delete the keys of `ids` in the given states (all, by default); returns what was removed. */
  delete(ids: readonly string[], states: readonly KeyState[] = KEY_STATES): { id: string; state: KeyState }[] {
    const removed: { id: string; state: KeyState }[] = [];
    for (const id of ids) {
      assertMinionId(id);
      for (const state of states) {
        const file = this.file(state, id);
        try {
          unlinkSync(file);
          removed.push({ id, state });
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
        this.files.forget(file);
      }
    }
    return removed;
  }

  /** Record a key offered for an id that already has a different one. */
  deny(id: string, pem: string): void {
    assertMinionId(id);
    this.write('denied', id, pem);
  }

  /**
   * The key-side decision for a minion's `_auth` (Salt's order): rejected wins; an accepted id with
   * the same key is accepted; a new id is stored as pending; a known id (accepted or pending) offering
   * a different key is denied, and the offered key is written to minions_denied.
   */
  registerPending(id: string, pem: string): AuthDecision {
    return this.authDecision(id, pem);
  }

  /**
   * open_mode: whatever the id's state, the offered key becomes its accepted key (Salt's way to
   * clean out keys after a re-install, not for normal operation).
   */
  acceptOpen(id: string, pem: string): void {
    assertMinionId(id);
    publicKeyFromPem(pem);
    for (const state of ['pending', 'rejected', 'denied'] as const) {
      const file = this.file(state, id);
      if (statOrUndefined(file)) {
        rmSync(file, { force: true });
        this.files.forget(file);
      }
    }
    this.write('accepted', id, pem);
    this.files.forget(this.file('accepted', id));
  }

  /**
   * registerPending for the master's `_auth`. With `autoAccept` (auto_accept, or an autosign_file
   * match) a new id's key goes straight to minions/, as Salt writes it, and a pending key the
   * minion offers again is accepted; either way the decision is then `accepted`. `autoReject` (an
   * autoreject_file match) comes first, as in Salt: a new key is written to minions_rejected and a
   * pending one moved there, whatever key it is; an accepted key is not touched.
   */
  authDecision(id: string, pem: string, autoAccept = false, autoReject = false): AuthDecision {
    assertMinionId(id);
    publicKeyFromPem(pem); // CryptoError BAD_KEY before anything touches the disk
    if (this.files.read(this.file('rejected', id)) !== undefined) return { state: 'rejected' };
    if (autoReject && this.files.read(this.file('accepted', id)) === undefined) {
      const wasPending = this.files.read(this.file('pending', id)) !== undefined && this.move(id, 'pending', 'rejected');
      if (!wasPending) this.write('rejected', id, pem);
      return { state: 'rejected', autoRejected: true, wasPending };
    }
    for (const known of ['accepted', 'pending'] as const) {
      const stored = this.files.read(this.file(known, id));
      if (stored === undefined) continue;
      if (!sameKey(stored, pem)) {
        this.deny(id, pem);
        return { state: 'denied', knownState: known, knownFingerprint: fingerprint(stored), offeredFingerprint: fingerprint(pem) };
      }
      if (known === 'pending' && autoAccept) {
        // Moved away meanwhile (salt-key in another process): decide again from what is there now.
        return this.move(id, 'pending', 'accepted') ? { state: 'accepted', autoAccepted: true } : this.authDecision(id, pem, true);
      }
      return { state: known };
    }
    // Not fsynced when accepted here: a key lost to a crash is accepted again at the next sign-in,
    // and a sign-in storm of thousands should not wait on the disk for each.
    if (!autoAccept) {
      this.write('pending', id, pem);
      return { state: 'pending' };
    }
    this.write('accepted', id, pem, false);
    return { state: 'accepted', autoAccepted: true };
  }

  private globTest(pattern: string): (name: string) => boolean {
    const globs = pattern.includes(',') ? pattern.split(',') : [pattern];
    return (name) => globs.some((g) => this.matcher(g, name));
  }

  private dir(state: KeyState): string {
    return path.join(this.pkiDir, STATE_DIRS[state]);
  }

  private file(state: KeyState, id: string): string {
    return path.join(this.dir(state), id);
  }

  private locate(id: string, states: readonly KeyState[]): KeyState | undefined {
    assertMinionId(id);
    return states.find((s) => statOrUndefined(this.file(s, id))?.isFile());
  }

  private move(id: string, from: KeyState, to: KeyState): boolean {
    const source = this.file(from, id);
    this.ensureDir(to);
    try {
      renameSync(source, this.file(to, id)); // atomic; replaces a stale file of the same id
    } catch (err) {
      if (isMissing(err)) return false; // moved away by another process meanwhile
      throw err;
    }
    this.files.forget(source);
    return true;
  }

  private readonly madeDirs = new Set<KeyState>();

  /** `durable` (fsync) defaults to what `salt-key` decisions need: accepted and rejected keys. */
  private write(state: KeyState, id: string, pem: string, durable = state === 'accepted' || state === 'rejected'): void {
    this.ensureDir(state);
    try {
      writeFileAtomic(this.file(state, id), pem, 0o644, durable);
    } catch (err) {
      if (!isMissing(err)) throw err;
      // The folder was removed behind our back: make it again.
      this.madeDirs.delete(state);
      this.ensureDir(state);
      writeFileAtomic(this.file(state, id), pem, 0o644, durable);
    }
  }

  /** Each state's folder is made once per store (a sign-in storm would stat it thousands of times). */
  private ensureDir(state: KeyState): void {
    if (this.madeDirs.has(state)) return;
    mkdirSync(this.dir(state), { recursive: true, mode: 0o700 });
    this.madeDirs.add(state);
  }
}

/** Python's sorted(key=str.lower): stable sort by the lower-cased name. */
export function sortIgnoreCase(names: string[]): string[] {
  return names
    .map((name, i) => ({ name, low: name.toLowerCase(), i }))
    .sort((a, b) => (a.low < b.low ? -1 : a.low > b.low ? 1 : a.i - b.i))
    .map((e) => e.name);
}
