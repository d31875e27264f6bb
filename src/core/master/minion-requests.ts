import { matchTarget, type TargetType } from '../targeting';
import {
  dirList,
  fileEnvs,
  fileFind,
  fileHash,
  fileHashAndStat,
  fileList,
  fileListEmptyDirs,
  serveFile,
  symlinkList,
  type FileServerOptions,
} from './file-server';
import { MINE_ACL_DATA, MINE_ACL_ID, type MineStore } from './mine-store';
import { receiveFile, type FileRecvOptions } from './file-recv';
import type { Logger } from '../log';

/** What answering a Salt minion's requests needs from the master. */
export interface MinionRequestsDeps {
  files: FileServerOptions;
  mine: MineStore;
  /** The accepted minion ids. */
  accepted: () => Iterable<string>;
  /** The grains a minion last sent, if any. */
  grains: (id: string) => Record<string, unknown> | undefined;
  /** The master's configuration (Salt's option names), for `_master_opts` and `_file_recv`. */
  options: Record<string, unknown>;
  log?: Logger;
}

type Load = Record<string, unknown>;

/** Salt 3007's defaults of the master options `_master_opts` hands to minions. */
const MASTER_OPTS_DEFAULTS: Record<string, unknown> = {
  top_file_merging_strategy: 'merge',
  env_order: [],
  default_top: 'base',
  renderer: 'jinja|yaml',
  failhard: false,
  state_top: 'top.sls',
  state_top_saltenv: null,
  nodegroups: {},
  state_auto_order: true,
  state_events: false,
  state_aggregate: false,
  jinja_env: {},
  jinja_sls_env: {},
  jinja_lstrip_blocks: false,
  jinja_trim_blocks: false,
};

function has(load: Load, ...keys: string[]): boolean {
  return keys.every((k) => Object.hasOwn(load, k));
}

/**
 * The aes requests a Salt 3007 minion sends while copying files, applying states and using the
 * mine, answered as Salt's `AESFuncs` (`salt/master.py`, `salt/daemons/masterapi.py`,
 * `salt/fileserver/`) answers them. `_return`, `_minion_event` and `_pillar` are the request
 * handler's own. A command Salt's master does not expose gets Salt's answer to it, an encrypted
 * `{}`; a load missing the fields a command needs gets what Salt gives then (`{}`, `''` or `[]`).
 */
export class MinionRequests {
  private readonly handlers: Record<string, (id: string, load: Load) => unknown> = {
    _file_list: (_id, load) => fileList(this.deps.files, load),
    _file_list_emptydirs: (_id, load) => fileListEmptyDirs(this.deps.files, load),
    _dir_list: (_id, load) => dirList(this.deps.files, load),
    _symlink_list: (_id, load) => symlinkList(this.deps.files, load),
    _file_envs: () => fileEnvs(this.deps.files),
    _serve_file: (_id, load) => serveFile(this.deps.files, load),
    _file_find: (_id, load) => fileFind(this.deps.files, load),
    _file_hash: (_id, load) => fileHash(this.deps.files, load),
    _file_hash_and_stat: (_id, load) => fileHashAndStat(this.deps.files, load),
    _master_opts: (_id, load) => this.masterOpts(load),
    // brine has no master_tops extensions: Salt answers `{}` then too.
    _master_tops: () => ({}),
    _mine: (id, load) => this.mine(id, load),
    _mine_get: (id, load) => this.mineGet(id, load),
    _mine_delete: (id, load) => this.mineDelete(id, load),
    _mine_flush: (id, load) => this.mineFlush(id, load),
    // cp.push: refused with False unless file_recv is True (Salt's default is off).
    _file_recv: (id, load) => receiveFile(this.deps.options as unknown as FileRecvOptions, id, load, this.deps.log),
  };

  constructor(private readonly deps: MinionRequestsDeps) {}

  /** Whether `cmd` is one of the requests answered here. */
  answers(cmd: string): boolean {
    return Object.hasOwn(this.handlers, cmd);
  }

  /**
   * The answer to `load` from the signed-in minion `id` (the load's id was checked against the
   * session). Throws a ProtocolError for a load Salt would also fail on (a bad `_serve_file` loc).
   */
  answer(id: string, load: Load): unknown {
    const cmd = String(load.cmd);
    if (!this.answers(cmd)) return {};
    return this.handlers[cmd](id, load);
  }

  private masterOpts(load: Load): Record<string, unknown> {
    const opt = (name: string) =>
      Object.hasOwn(this.deps.options, name) && this.deps.options[name] !== undefined
        ? this.deps.options[name]
        : MASTER_OPTS_DEFAULTS[name];
    const fileRoots: Record<string, string[]> = {};
    for (const env of fileEnvs(this.deps.files)) fileRoots[env] = [];
    const mopts: Record<string, unknown> = { file_roots: fileRoots };
    for (const name of ['top_file_merging_strategy', 'env_order', 'default_top']) mopts[name] = opt(name);
    if (load.env_only) return mopts;
    for (const name of [
      'renderer',
      'failhard',
      'state_top',
      'state_top_saltenv',
      'nodegroups',
      'state_auto_order',
      'state_events',
      'state_aggregate',
      'jinja_env',
      'jinja_sls_env',
      'jinja_lstrip_blocks',
      'jinja_trim_blocks',
    ]) {
      mopts[name] = opt(name);
    }
    return mopts;
  }

  private mine(id: string, load: Load): unknown {
    if (!has(load, 'id', 'data')) return {};
    const data = load.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data) || Buffer.isBuffer(data)) return false;
    this.deps.mine.update(id, data as Record<string, unknown>, Boolean(load.clear));
    return true;
  }

  private mineDelete(id: string, load: Load): unknown {
    if (!has(load, 'id', 'fun')) return {};
    if (typeof load.fun !== 'string') return false;
    return this.deps.mine.delete(id, load.fun);
  }

  private mineFlush(id: string, load: Load): unknown {
    if (!has(load, 'id')) return {};
    this.deps.mine.flush(id);
    return true;
  }

  /**
   * `_mine_get` (`{tgt, fun, tgt_type}`): the mine data of the minions the target matches (not
   * greedy: a minion whose grains are unknown does not match a grain target). One function gives
   * `{minion: data}`, several (a list, or `a,b`) `{function: {minion: data}}`. Entries stored with a
   * minion-side ACL (`allow_tgt`) are given only to the minions it allows.
   */
  private mineGet(requester: string, load: Load): unknown {
    if (!has(load, 'id', 'tgt', 'fun')) return {};
    let functions: string[];
    let byFunction: boolean;
    if (typeof load.fun === 'string') {
      functions = [...new Set(load.fun.split(','))];
      byFunction = functions.length > 1;
    } else if (Array.isArray(load.fun)) {
      functions = load.fun.map(String);
      byFunction = true;
    } else {
      return {};
    }
    const tgtType = String(load.tgt_type ?? load.expr_form ?? 'glob').toLowerCase() as TargetType;
    const minions = this.matching(load.tgt as string, tgtType);
    const ret: Record<string, unknown> = {};
    for (const minion of minions) {
      const data = this.deps.mine.fetch(minion);
      for (const fun of functions) {
        if (!Object.hasOwn(data, fun)) continue;
        let result = data[fun];
        const entry = data[fun] as Record<string, unknown> | null;
        if (entry !== null && typeof entry === 'object' && !Array.isArray(entry) && Object.hasOwn(entry, MINE_ACL_ID)) {
          result = entry[MINE_ACL_DATA];
          if (entry.allow_tgt !== undefined) {
            const allowed = this.matching(entry.allow_tgt as string, String(entry.allow_tgt_type ?? 'glob') as TargetType);
            if (!allowed.includes(requester)) continue;
          }
        }
        if (byFunction) ((ret[fun] ??= {}) as Record<string, unknown>)[minion] = result;
        else ret[minion] = result;
      }
    }
    return ret;
  }

  private matching(tgt: string | string[], tgtType: TargetType): string[] {
    const nodegroups = (this.deps.options.nodegroups ?? {}) as Record<string, string | string[]>;
    const out: string[] = [];
    for (const id of this.deps.accepted()) {
      if (matchTarget({ tgt, tgtType }, { id, grains: this.deps.grains(id) }, { nodegroups })) out.push(id);
    }
    return out;
  }
}
