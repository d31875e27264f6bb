/**
 * The master's in-memory view of the key directories, kept current without rescanning them on
 * every publish. salt-key changes the files from another process, so the view is refreshed two
 * ways:
 *
 * - a directory watch names each changed file; the names seen within KEY_WATCH_COALESCE_MS are
 *   looked up one by one (four stats each), so a sign-in storm costs O(1) per new key;
 * - before a publish, `refresh()` stats the four directories and re-reads only those whose mtime
 *   moved since they were last read, so a job published right after `salt-key -d` never goes out
 *   to the deleted key even if the watch event has not been read yet. An unchanged fleet costs
 *   four stats per publish instead of four directory reads of N names.
 *
 * A directory read within RACY_MS of its last change is not trusted to stay current (the kernel
 * stamps mtimes from a coarse clock: a second change in the same tick keeps the same mtime), so
 * the next refresh reads it again, as git does with "racily clean" index entries.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { KeyEvent } from './events';
import { KEY_STATES, STATE_DIRS, sortIgnoreCase, type KeyState, type KeyStore } from './key-store';
import { statOrUndefined } from './key-files';

/** Key-directory changes within this window are applied together (one publish-key rotation). */
export const KEY_WATCH_COALESCE_MS = 100;
/** A directory changed less than this long before it was read is read again at the next refresh. */
const RACY_MS = 50;

/** What one refresh found: Salt's `salt/key` events, and the ids whose key is no longer accepted. */
export interface KeyChanges {
  events: KeyEvent[];
  unaccepted: string[];
}

export class KeyIndex {
  /** What was on disk at the last read, per state. */
  private readonly onDisk: Record<KeyState, Set<string>> = {
    accepted: new Set(),
    pending: new Set(),
    rejected: new Set(),
    denied: new Set(),
  };
  /** Each directory's mtime (ns) when it was last read; undefined = read it at the next refresh. */
  private readonly stamps: Record<KeyState, bigint | undefined> = {
    accepted: undefined,
    pending: undefined,
    rejected: undefined,
    denied: undefined,
  };
  /** The accepted ids the master works with: the disk's, plus keys it accepted itself since. */
  private readonly acceptedView = new Set<string>();
  private readonly watchers: FSWatcher[] = [];
  private readonly changedNames = new Set<string>();
  private rereadAll = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly keys: KeyStore,
    private readonly onChanges: (changes: KeyChanges) => void,
  ) {}

  /** The accepted ids, in Salt's listing order for those read from disk. */
  get accepted(): ReadonlySet<string> {
    return this.acceptedView;
  }

  /** How many keys wait for acceptance, as of the last read (max_pending_keys). */
  get pendingCount(): number {
    return this.onDisk.pending.size;
  }

  /** The first read: no events for what was already there. */
  load(): void {
    for (const state of KEY_STATES) this.read(state);
    for (const id of this.onDisk.accepted) this.acceptedView.add(id);
  }

  /** A key the master accepted itself (auto_accept, autosign, open_mode): in the view at once. */
  noteAccepted(id: string): void {
    this.acceptedView.add(id);
  }

  /** Re-reads the directories that changed since they were last read (before each publish). */
  refresh(): void {
    const changed = KEY_STATES.filter((state) => this.stamps[state] === undefined || this.mtime(state) !== this.stamps[state]);
    if (changed.length > 0) this.reread(changed);
  }

  /** Watches the four directories (they must exist); changes reach onChanges within the window. */
  watch(onError: (dir: string, err: Error) => void): void {
    for (const state of KEY_STATES) {
      const dir = this.dir(state);
      const watcher = watch(dir, (_event, name) => {
        if (typeof name === 'string' && name !== '') this.changedNames.add(name);
        else this.rereadAll = true; // no name given: read everything
        this.schedule();
      });
      watcher.on('error', (err) => onError(dir, err));
      this.watchers.push(watcher);
    }
  }

  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.applyWatched();
    }, KEY_WATCH_COALESCE_MS);
    this.timer.unref();
  }

  /** The names the watch reported: each looked up in the four directories. */
  private applyWatched(): void {
    if (this.rereadAll) {
      this.rereadAll = false;
      this.changedNames.clear();
      this.reread(KEY_STATES);
      return;
    }
    const names = [...this.changedNames].filter((n) => !n.startsWith('.'));
    this.changedNames.clear();
    const before = new Map(names.map((id) => [id, this.statesOf(id)]));
    for (const id of names) {
      for (const state of KEY_STATES) {
        if (statOrUndefined(join(this.dir(state), id))?.isFile()) this.onDisk[state].add(id);
        else this.onDisk[state].delete(id);
      }
    }
    const unaccepted: string[] = [];
    for (const id of names) {
      if (this.onDisk.accepted.has(id)) this.acceptedView.add(id);
      else if (this.acceptedView.delete(id)) unaccepted.push(id);
    }
    this.report(names, before, unaccepted);
  }

  /** Reads whole directories again and reports the differences. */
  private reread(states: readonly KeyState[]): void {
    const old = new Map(states.map((state) => [state, this.onDisk[state]]));
    for (const state of states) this.read(state);
    const touched = new Set<string>();
    for (const state of states) {
      const was = old.get(state)!;
      const now = this.onDisk[state];
      for (const id of was) if (!now.has(id)) touched.add(id);
      for (const id of now) if (!was.has(id)) touched.add(id);
    }
    const before = new Map<string, Set<KeyState>>();
    for (const id of touched) {
      const states0 = this.statesOf(id);
      for (const state of states) {
        if (old.get(state)!.has(id)) states0.add(state);
        else states0.delete(state);
      }
      before.set(id, states0);
    }
    const unaccepted: string[] = [];
    if (states.includes('accepted')) {
      // As the master always did: the view becomes the disk's listing, and every id it held
      // (those it accepted itself included) that the disk no longer has is unaccepted.
      for (const id of this.acceptedView) if (!this.onDisk.accepted.has(id)) unaccepted.push(id);
      this.acceptedView.clear();
      for (const id of this.onDisk.accepted) this.acceptedView.add(id);
    }
    this.report([...touched], before, unaccepted);
  }

  /** Salt's salt/key events for the ids that changed (accepts, then rejects, then deletes). */
  private report(ids: string[], before: Map<string, Set<KeyState>>, unaccepted: string[]): void {
    const accepts: KeyEvent[] = [];
    const rejects: KeyEvent[] = [];
    const deletes: KeyEvent[] = [];
    for (const id of sortIgnoreCase(ids)) {
      const was = before.get(id) ?? new Set<KeyState>();
      const now = this.statesOf(id);
      if (now.has('accepted') && !was.has('accepted')) accepts.push({ id, act: 'accept', result: true });
      if (now.has('rejected') && !was.has('rejected')) rejects.push({ id, act: 'reject', result: true });
      if (was.size > 0 && now.size === 0) deletes.push({ id, act: 'delete', result: true });
    }
    const events = [...accepts, ...rejects, ...deletes];
    if (events.length > 0 || unaccepted.length > 0) this.onChanges({ events, unaccepted });
  }

  private statesOf(id: string): Set<KeyState> {
    return new Set(KEY_STATES.filter((state) => this.onDisk[state].has(id)));
  }

  private read(state: KeyState): void {
    const stamp = this.mtime(state);
    const startedMs = Date.now();
    this.onDisk[state] = new Set(this.keys.list(state));
    // Changed within RACY_MS of this read: a later change could carry the same mtime.
    const racy = stamp === undefined || Number(stamp / 1_000_000n) > startedMs - RACY_MS;
    this.stamps[state] = racy ? undefined : stamp;
  }

  private mtime(state: KeyState): bigint | undefined {
    try {
      return statSync(this.dir(state), { bigint: true }).mtimeNs;
    } catch {
      return undefined;
    }
  }

  private dir(state: KeyState): string {
    return join(this.keys.pkiDir, STATE_DIRS[state]);
  }
}
