import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MinionData {
  grains?: Record<string, unknown>;
  pillar?: Record<string, unknown>;
}

/**
 * What the master knows of each minion (the grains it sent), kept in memory for targeting and
 * written to `<cachedir>/minions/<id>/data.json` so it survives a restart, as Salt's minion data
 * cache does. Ids reaching here were validated by the key store.
 */
export class MinionDataCache {
  private readonly data = new Map<string, MinionData>();
  private readonly root: string;

  constructor(cachedir: string) {
    this.root = join(cachedir, 'minions');
    mkdirSync(this.root, { recursive: true });
    for (const id of readdirSync(this.root)) {
      try {
        this.data.set(id, JSON.parse(readFileSync(join(this.root, id, 'data.json'), 'utf8')) as MinionData);
      } catch {
        // A damaged entry is as good as none: the minion sends its grains again when it starts.
      }
    }
  }

  get(id: string): MinionData | undefined {
    return this.data.get(id);
  }

  grains(id: string): Record<string, unknown> | undefined {
    return this.data.get(id)?.grains;
  }

  update(id: string, patch: MinionData): void {
    const next = { ...this.data.get(id), ...patch };
    this.data.set(id, next);
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.data.json.${process.pid}`);
    writeFileSync(tmp, JSON.stringify(next));
    renameSync(tmp, join(dir, 'data.json'));
  }

  remove(id: string): void {
    this.data.delete(id);
    rmSync(join(this.root, id), { recursive: true, force: true });
  }
}
