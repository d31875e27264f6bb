/**
 * The minion's link to its master, for modules such as `event`, `cp` and `mine`: the requests Salt's minion
 * sends over its authenticated request channel (`_minion_event`, the file server's `_file_list`,
 * `_dir_list`, `_file_list_emptydirs`, `_file_hash`, `_serve_file`, and `_mine`, `_mine_get`, `_mine_delete`,
 * `_mine_flush`). The same requests reach a brine master and a Salt 3007 master.
 */

/** What `_file_hash` answers for a file: its digest and the master's `hash_type`. */
export interface MasterFileHash {
  hsum: string;
  hash_type: string;
}

/**
 * Requests to the minion's master. Without a master (`salt-call --local`, `file_client: local`)
 * every method throws a CommandExecutionError that says so.
 *
 * @example
 * await this.master.fireEvent('myapp/deployed', { version: 3 });   // on the master's event bus
 * await this.master.fetchFile('base', 'files/motd', '/tmp/motd');  // true; false when missing
 * await this.master.mineGet('web*', 'network.ip_addrs', 'glob');   // { web1: [...], ... }
 */
export interface IMasterLink {
  /**
   * Fires `tag` with `data` on the master's event bus (Salt's `_minion_event`); `preload` fields
   * are merged into the request as Salt's `event.fire_master(preload=...)` does.
   */
  fireEvent(tag: string, data: unknown, preload?: Record<string, unknown>): Promise<void>;
  /** Files of a saltenv below `prefix`, relative to the file roots, as the master lists them. */
  listFiles(saltenv: string, prefix?: string): Promise<string[]>;
  /** Directories of a saltenv below `prefix`, as the master lists them. */
  listDirs(saltenv: string, prefix?: string): Promise<string[]>;
  /** Directories of a saltenv below `prefix` that hold nothing (Salt's `_file_list_emptydirs`). */
  listEmptyDirs(saltenv: string, prefix?: string): Promise<string[]>;
  /** The master's digest of a file, or null when it has no such file. */
  hashFile(saltenv: string, path: string): Promise<MasterFileHash | null>;
  /** Downloads a file to `dest` (parent directories must exist). False when the master has no such file. */
  fetchFile(saltenv: string, path: string, dest: string): Promise<boolean>;
  /** Stores `data` (`{function: result}`) in this minion's mine; `clear` replaces the whole mine. */
  mineSend(data: Record<string, unknown>, clear?: boolean): Promise<unknown>;
  /** The mine data of `fun` from the minions `tgt` matches: `{minion: data}`. */
  mineGet(tgt: string, fun: string | string[], tgtType: string): Promise<Record<string, unknown>>;
  /** Drops one function from this minion's mine. */
  mineDelete(fun: string): Promise<unknown>;
  /** Empties this minion's mine. */
  mineFlush(): Promise<unknown>;
  /**
   * Sends one chunk of a file to the master's cache (Salt's `_file_recv`, what `cp.push` sends):
   * `path` is the file's path split into its parts, `loc` the chunk's offset. The master's answer:
   * true, or false when it refuses (its `file_recv` is off, or the file is too large).
   */
  pushFileChunk(chunk: { path: string[]; size: number; loc: number; data: Buffer }): Promise<unknown>;
  /**
   * Asks any master (`host`, its request port) whether it answers, on a connection of its own
   * (Salt's clear `ping`, what `status.ping_master` sends); false when no answer in `timeoutMs`.
   */
  ping(host: string, port: number, timeoutMs: number): Promise<boolean>;
}
/** Service id of {@link IMasterLink}. @example constructor(@inject(IMasterLink) private readonly master: IMasterLink) {} */
export const IMasterLink: unique symbol = Symbol.for('brine.IMasterLink');
