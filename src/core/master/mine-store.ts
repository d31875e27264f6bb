import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '../protocol/msgpack';

/** Salt's marker of a mine entry that carries a minion-side ACL (`salt/utils/mine.py`). */
export const MINE_ACL_ID = '__saltmine_acl__';
export const MINE_ACL_DATA = '__data__';

export type MineData = Record<string, unknown>;

/**
 * The master-side Salt mine: each minion's `{function: data}` in `<cachedir>/minions/<id>/mine.p`
 * (msgpack, where Salt's localfs cache keeps the bank `minions/<id>`, key `mine`). The folder is
 * the minion data cache's, so deleting a minion's key drops its mine too, as in Salt. Ids reaching
 * here come from authenticated sessions.
 */
export class MineStore {
  private readonly root: string;

  constructor(cachedir: string) {
    this.root = join(cachedir, 'minions');
  }

  private file(id: string): string {
    return join(this.root, id, 'mine.p');
  }

  /** The minion's mine, `{}` when it has none (or the file is damaged: the minion sends it again). */
  fetch(id: string): MineData {
    try {
      const data = decode(readFileSync(this.file(id)));
      return data !== null && typeof data === 'object' && !Array.isArray(data) && !Buffer.isBuffer(data) ? (data as MineData) : {};
    } catch {
      return {};
    }
  }

  /** `_mine`: merges the functions sent into the minion's mine, or replaces it with `clear`. */
  update(id: string, data: MineData, clear: boolean): void {
    this.write(id, clear ? { ...data } : { ...this.fetch(id), ...data });
  }

  /** `_mine_delete`: drops one function; false when the minion has no mine. */
  delete(id: string, fun: string): boolean {
    const mine = this.fetch(id);
    if (Object.hasOwn(mine, fun)) {
      delete mine[fun];
      this.write(id, mine);
    }
    return true;
  }

  /** `_mine_flush`: the minion's whole mine. */
  flush(id: string): void {
    rmSync(this.file(id), { force: true });
  }

  private write(id: string, data: MineData): void {
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.mine.p.${process.pid}`);
    writeFileSync(tmp, encode(data));
    renameSync(tmp, this.file(id));
  }
}
