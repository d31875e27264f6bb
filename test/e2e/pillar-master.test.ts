/**
 * Pillar from a brine master: each minion gets the pillar compiled for it alone (its id, its
 * grains), the master caches it for -I targeting, a changed pillar file is seen on
 * saltutil.refresh_pillar without restarting the master, and a render error is `_errors` with
 * exit 0.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';

let cluster: Cluster;
let pillarRoot: string;

function write(rel: string, text: string): void {
  const path = join(pillarRoot, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  cluster = await Cluster.create();
  pillarRoot = join(cluster.root, 'pillar');
  write('top.sls', "base:\n  '*':\n    - common\n  'web1':\n    - web\n  'role:db':\n    - match: grain\n    - db\n");
  write('common.sls', 'site: {{ grains["id"] }}.example\n');
  write('web.sls', 'role: web\nsecret: web-only-secret\n');
  write('db.sls', 'role: db\nsecret: db-only-secret\n');
  const masterConf = join(cluster.masterDir, 'master');
  writeFileSync(masterConf, `${readFileSync(masterConf, 'utf8')}pillar_roots:\n  base:\n    - ${pillarRoot}\n`);
  await cluster.startMaster();
  await cluster.startAccepted([{ id: 'web1' }, { id: 'db1', grains: { role: 'db' } }]);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The returns, merged: the json outputter prints one document per minion as it answers. */
async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cluster.salt(...args, '--out', 'json');
  expect(res.code, res.stderr).toBe(0);
  const docs = res.stdout.trim().split(/\n(?=\{)/);
  return Object.assign({}, ...docs.map((d) => JSON.parse(d)));
}

describe('pillar from the master', () => {
  it("gives each minion its own pillar and never another's", async () => {
    expect(await json('web1', 'pillar.items')).toEqual({ web1: { site: 'web1.example', role: 'web', secret: 'web-only-secret' } });
    expect(await json('db1', 'pillar.items')).toEqual({ db1: { site: 'db1.example', role: 'db', secret: 'db-only-secret' } });
    const both = await json('*', 'pillar.get', 'secret');
    expect(both).toEqual({ web1: 'web-only-secret', db1: 'db-only-secret' });
  }, 60_000);

  it('targets with -I and I@ from the pillar the master compiled', async () => {
    expect(Object.keys(await json('-I', 'role:web', 'test.ping'))).toEqual(['web1']);
    expect(Object.keys(await json('-C', 'I@role:db and db*', 'test.ping'))).toEqual(['db1']);
  }, 60_000);

  it('sees a changed pillar file on saltutil.refresh_pillar, without a master restart', async () => {
    write('web.sls', 'role: web\nsecret: rotated-secret\n');
    expect(await json('web1', 'saltutil.refresh_pillar')).toEqual({ web1: true });
    expect(await json('web1', 'pillar.get', 'secret')).toEqual({ web1: 'rotated-secret' });
    expect(await json('web1', 'pillar.raw', 'key=secret')).toEqual({ web1: 'rotated-secret' });
  }, 60_000);

  it('merges a command-line pillar override over the compiled pillar', async () => {
    expect(await json('web1', 'pillar.items', 'pillar={"secret": "override", "extra": 1}')).toEqual({
      web1: { site: 'web1.example', role: 'web', secret: 'override', extra: 1 },
    });
  }, 60_000);

  it('answers a broken pillar file with _errors, exit 0, and logs the cause on the master', async () => {
    write('common.sls', 'site: {{ undefined_thing.x }}\n');
    const res = await cluster.salt('db1', 'pillar.items', '--out', 'json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ db1: { role: 'db', secret: 'db-only-secret', _errors: ["Rendering SLS 'common' failed. Please see master log for details."] } });
    await cluster.master!.waitFor("Rendering SLS 'common' failed, render error:");
    write('common.sls', 'site: {{ grains["id"] }}.example\n');
  }, 60_000);
});
