/**
 * A brine master and a Salt 3007.10 master (../shared/salt-ref) side by side, one minion of the
 * other kind under each, for what needs both masters at once:
 * - pillar both ways: a real Salt minion asks the brine master for its pillar (`_pillar` with Salt's
 *   own fields, answered with send_private), a brine minion asks the Salt master for its own. Each
 *   side holds a second minion's secret in the same top file, which must never reach the first.
 * - salt-api: the same HTTP calls sent to Salt's own salt-api (rest_cherrypy, CherryPy from Debian)
 *   and to brine's, live; the answers must be equal after normalising tokens, jids, times and the
 *   minion's id.
 * Every wait is on a log line or a command's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiDaemon } from '../../src/api/api-daemon';
import { loadMasterConfig } from '../../src/core/config';
import { normalise } from '../support/api-exchanges';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../support/cluster';
import { freePort } from '../support/ports';
import { stringify } from 'yaml';
import {
  describeWithSalt,
  json,
  runSalt,
  type SaltDaemon,
  startSalt,
  writeSaltMasterConfig,
  writeSaltMinionConfig,
} from '../support/salt-ref';

/** A pillar tree: every minion gets `site`; `mine` and `other` get their own secret. */
function writePillar(dir: string, mine: string, other: string): void {
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  writeFileSync(
    join(dir, 'top.sls'),
    `base:\n  '*':\n    - common\n  '${mine}':\n    - secrets.${mine}\n  '${other}':\n    - secrets.${other}\n`,
  );
  writeFileSync(
    join(dir, 'common.sls'),
    "site: {{ grains['id'] }}.example\n{% set owner = 'ops' %}\nnested:\n  owner: {{ owner }}\n  ports: [80, 443]\n",
  );
  writeFileSync(join(dir, 'secrets', `${mine}.sls`), `secret: ${mine}-only-secret\nrole: {{ grains.get('role', 'none') }}\n`);
  writeFileSync(join(dir, 'secrets', `${other}.sls`), `secret: ${other}-only-secret\n`);
}

/** salt-api's configuration on both masters, as the salt-api corpus was captured (../shared/salt-api/README.md). */
function apiConfig(root: string, port: number): Record<string, unknown> {
  return {
    netapi_enable_clients: ['local', 'local_async', 'runner', 'wheel'],
    external_auth: { file: { '^filename': join(root, 'htpasswd'), '^filetype': 'text', apiuser: ['.*', '@runner', '@wheel', '@jobs'] } },
    rest_cherrypy: { port, host: '127.0.0.1', disable_ssl: true },
  };
}

/** One salt-api to call: its address, the minion its master has, and what the calls learned. */
interface ApiSide {
  url: string;
  minion: string;
  token: string;
  jid: string;
}

/** An HTTP call; `{M}` and `{JID}` in path and body stand for the side's minion and last async jid. */
interface Call {
  name: string;
  method?: 'GET' | 'POST';
  path?: string;
  /** Sends the side's session token as X-Auth-Token. */
  auth?: boolean;
  headers?: Record<string, string>;
  body?: string;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const LOGIN = '{"username": "apiuser", "password": "apipass", "eauth": "file"}';
/** Response headers whose values must be Salt's. */
const SAME_HEADERS = ['content-type', 'access-control-allow-origin', 'access-control-allow-credentials', 'cache-control', 'allow'];

async function send(side: ApiSide, call: Call): Promise<{ status: number; headers: Headers; body: string }> {
  const fill = (t: string) => t.split('{M}').join(side.minion).split('{JID}').join(side.jid);
  const headers: Record<string, string> = { ...(call.body !== undefined ? JSON_TYPE : {}), ...call.headers };
  if (call.auth) headers['X-Auth-Token'] = side.token;
  const res = await fetch(`${side.url}${fill(call.path ?? '/')}`, {
    method: call.method ?? (call.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: call.body !== undefined ? fill(call.body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** What may differ between the two answers: tokens, jids, times, ports, fingerprints, the minion. */
function comparable(body: string, type: string, minion: string): unknown {
  const text = normalise(body).split(minion).join('<MINION>');
  return type.startsWith('application/json') ? JSON.parse(text) : text;
}

describeWithSalt('pillar and salt-api between brine and Salt 3007', () => {
  let cluster: Cluster;
  let brinePillar: string;
  let pyMinionDir: string;
  let pyMinion: SaltDaemon;
  let saltMasterDir: string;
  let saltMasterPillar: string;
  let saltMaster: SaltDaemon;
  let saltApi: SaltDaemon;
  let brineApi: ApiDaemon;
  const apiPorts = { salt: 0, brine: 0 };
  const salt = (...args: string[]) => runSalt('salt', saltMasterDir, args);

  beforeAll(async () => {
    cluster = await Cluster.create({ auto_accept: true, timeout: 20, gather_job_timeout: 10 });
    brinePillar = join(cluster.root, 'brine-pillar');
    writePillar(brinePillar, 'pyminion', 'elsewhere');
    saltMasterPillar = join(cluster.root, 'salt-pillar');
    writePillar(saltMasterPillar, 'bm1', 'elsewhere');

    writeFileSync(join(cluster.root, 'htpasswd'), 'apiuser:apipass\n');
    apiPorts.salt = await freePort();
    apiPorts.brine = await freePort();
    const masterConf = join(cluster.masterDir, 'master');
    writeFileSync(
      masterConf,
      `${readFileSync(masterConf, 'utf8')}${stringify({ pillar_roots: { base: [brinePillar] }, ...apiConfig(cluster.root, apiPorts.brine) })}`,
    );
    const ports = { publish: await freePort(), ret: await freePort() };
    saltMasterDir = writeSaltMasterConfig(cluster.root, ports, {
      auto_accept: true,
      pillar_roots: { base: [saltMasterPillar] },
      ...apiConfig(cluster.root, apiPorts.salt),
    });
    saltMaster = startSalt('salt-master', 'salt-master', saltMasterDir);
    saltApi = startSalt('salt-api', 'salt-api', saltMasterDir);

    await cluster.startMaster();
    pyMinionDir = writeSaltMinionConfig(cluster.root, 'pyminion', cluster.retPort, { grains: { role: 'py' } });
    pyMinion = startSalt('pyminion', 'salt-minion', pyMinionDir);

    // The brine minion signs in to Salt's master (it retries until that master answers).
    const bm = await cluster.startMinion(
      { id: 'bm1', grains: { role: 'brine' }, config: { master_port: ports.ret } },
      'Setting up the Salt Minion',
    );
    await Promise.all([
      bm.waitFor('is ready', 80_000),
      pyMinion.waitFor('Minion is ready to receive requests!', 80_000),
      saltApi.waitFor('ENGINE Serving on', 80_000),
    ]);
    // brine's salt-api in this process, on the brine master's configuration.
    const quiet = () => undefined;
    brineApi = new ApiDaemon(loadMasterConfig(cluster.masterDir).config, { debug: quiet, info: quiet, warning: quiet, error: quiet });
    await brineApi.start();
  }, 120_000);

  afterAll(async () => {
    // The Salt daemons first: their roots are inside the cluster's, which stop() removes.
    await Promise.all([pyMinion?.stop(), saltMaster?.stop(), saltApi?.stop(), brineApi?.stop()]);
    await cluster?.stop();
  });

  it('a Salt minion gets its pillar from a brine master, and only its own', async () => {
    const res = await cluster.salt('pyminion', 'pillar.items', '--out', 'json');
    expect(res.code, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({
      pyminion: { site: 'pyminion.example', nested: { owner: 'ops', ports: [80, 443] }, secret: 'pyminion-only-secret', role: 'py' },
    });
    expect(res.stdout).not.toContain('elsewhere-only-secret');
    const nested = await cluster.salt('pyminion', 'pillar.get', 'nested:ports', '--out', 'json');
    expect(json(nested.stdout)).toEqual({ pyminion: [80, 443] });
  });

  it("a Salt minion sees a changed pillar after saltutil.refresh_pillar, and -I targets it from brine's cache", async () => {
    writeFileSync(join(brinePillar, 'secrets', 'pyminion.sls'), "secret: rotated\nrole: {{ grains.get('role', 'none') }}\n");
    expect(json((await cluster.salt('pyminion', 'saltutil.refresh_pillar', '--out', 'json')).stdout)).toEqual({ pyminion: true });
    expect(json((await cluster.salt('pyminion', 'pillar.get', 'secret', '--out', 'json')).stdout)).toEqual({ pyminion: 'rotated' });
    const targeted = await cluster.salt('-I', 'secret:rotated', 'test.ping', '--out', 'json');
    expect(json(targeted.stdout)).toEqual({ pyminion: true });
  });

  it('a brine minion gets its pillar from a Salt master, and only its own', async () => {
    const res = await salt('bm1', 'pillar.items', '--out', 'json', '-t', '30');
    expect(res.code, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({
      bm1: { site: 'bm1.example', nested: { owner: 'ops', ports: [80, 443] }, secret: 'bm1-only-secret', role: 'brine' },
    });
    expect(res.stdout).not.toContain('elsewhere-only-secret');
    expect(json((await salt('bm1', 'pillar.get', 'nested:owner', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: 'ops' });
  });

  it("a brine minion refreshes its pillar from a Salt master, and Salt's -I targets it", async () => {
    writeFileSync(join(saltMasterPillar, 'secrets', 'bm1.sls'), "secret: rotated-by-salt\nrole: {{ grains.get('role', 'none') }}\n");
    expect(json((await salt('bm1', 'saltutil.refresh_pillar', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: true });
    expect(json((await salt('bm1', 'pillar.get', 'secret', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: 'rotated-by-salt' });
    expect(json((await salt('-I', 'secret:rotated-by-salt', 'test.ping', '--out', 'json', '-t', '30')).stdout)).toEqual({ bm1: true });
  });

  describe("salt-api: the same calls to Salt's salt-api and to brine's answer alike", () => {
    const sides: Record<'salt' | 'brine', ApiSide> = {
      salt: { url: '', minion: 'bm1', token: '', jid: '' },
      brine: { url: '', minion: 'pyminion', token: '', jid: '' },
    };

    /** Sends a call to both, compares status, Salt's headers and the normalised bodies; returns both answers. */
    const both = async (call: Call) => {
      const [theirs, ours] = await Promise.all([send(sides.salt, call), send(sides.brine, call)]);
      expect(ours.status, `${call.name}: ${ours.body}`).toBe(theirs.status);
      for (const h of SAME_HEADERS) expect(ours.headers.get(h), `${call.name}: header ${h}`).toBe(theirs.headers.get(h));
      const type = theirs.headers.get('content-type') ?? '';
      expect(comparable(ours.body, type, sides.brine.minion), call.name).toEqual(comparable(theirs.body, type, sides.salt.minion));
      return { theirs, ours };
    };

    /** Independent calls, sent together (Salt's salt-api answers each from its own thread). */
    const atOnce = async (calls: Call[]) => {
      await Promise.all(calls.map(both));
    };

    beforeAll(async () => {
      sides.salt.url = `http://127.0.0.1:${apiPorts.salt}`;
      sides.brine.url = `http://127.0.0.1:${apiPorts.brine}`;
      const { theirs, ours } = await both({ name: 'login', path: '/login', body: LOGIN });
      sides.salt.token = theirs.headers.get('x-auth-token')!;
      sides.brine.token = ours.headers.get('x-auth-token')!;
    });

    it('login, the root, and the errors (401, 400, 404, 406) with their HTML pages', async () => {
      expect(sides.salt.token).toMatch(/^[0-9a-f]{40}$/);
      await atOnce([
        { name: 'root', path: '/' },
        { name: 'GET /login', path: '/login' },
        { name: 'bad password', path: '/login', body: '{"username": "apiuser", "password": "wrong", "eauth": "file"}' },
        { name: 'no token', body: '[{"client": "local", "tgt": "*", "fun": "test.ping"}]' },
        {
          name: 'unknown token',
          body: '[{"client": "local", "tgt": "*", "fun": "test.ping"}]',
          headers: { 'X-Auth-Token': 'f'.repeat(40) },
        },
        { name: 'client not enabled', auth: true, body: '[{"client": "ssh", "tgt": "*", "fun": "test.ping"}]' },
        { name: 'client missing', auth: true, body: '[{"tgt": "*", "fun": "test.ping"}]' },
        { name: 'client unknown', auth: true, body: '[{"client": "bogus", "tgt": "*", "fun": "test.ping"}]' },
        { name: 'invalid JSON', auth: true, body: '[{"client": ' },
        {
          name: 'unsupported Accept',
          auth: true,
          body: '{"client": "local", "tgt": "*", "fun": "test.ping"}',
          headers: { Accept: 'application/xml' },
        },
        { name: 'unknown path', path: '/nosuchpath' },
        { name: '/ws without ws4py', path: '/ws', auth: true },
        { name: 'unknown runner', auth: true, body: '{"client": "runner", "fun": "nosuch.runner"}' },
      ]);
    });

    it('local, local_async, GET /jobs, runner and wheel calls', async () => {
      await atOnce([
        { name: 'local test.ping', auth: true, body: '[{"client": "local", "tgt": "*", "fun": "test.ping"}]' },
        { name: 'one object, not a list', auth: true, body: '{"client": "local", "tgt": "{M}", "fun": "test.ping"}' },
        {
          name: 'arg and kwarg',
          auth: true,
          body: '{"client": "local", "tgt": "{M}", "fun": "test.arg", "arg": [1, "two", null], "kwarg": {"k": [true]}}',
        },
        {
          name: 'form-encoded',
          auth: true,
          body: 'client=local&tgt={M}&fun=test.echo&arg=hello',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        },
        {
          name: 'YAML answer',
          auth: true,
          body: '{"client": "local", "tgt": "{M}", "fun": "test.ping"}',
          headers: { Accept: 'application/x-yaml' },
        },
        { name: 'no minion matched', auth: true, body: '{"client": "local", "tgt": "nosuchminion", "fun": "test.ping"}' },
        {
          name: 'full_return',
          auth: true,
          body: '{"client": "local", "tgt": "{M}", "fun": "test.echo", "arg": ["x"], "full_return": true}',
        },
        { name: 'unknown function', auth: true, body: '{"client": "local", "tgt": "{M}", "fun": "nosuch.fun"}' },
        { name: 'runner manage.status', auth: true, body: '{"client": "runner", "fun": "manage.status"}' },
        { name: 'wheel key.finger', auth: true, body: '{"client": "wheel", "fun": "key.finger", "match": "{M}"}' },
        { name: 'GET /keys/<minion>', auth: true, path: '/keys/{M}' },
        { name: 'GET /keys/<unknown>', auth: true, path: '/keys/nosuchminion' },
      ]);

      const { theirs, ours } = await both({
        name: 'local_async',
        auth: true,
        body: '{"client": "local_async", "tgt": "{M}", "fun": "test.echo", "arg": ["later"]}',
      });
      sides.salt.jid = (JSON.parse(theirs.body) as { return: Array<{ jid: string }> }).return[0].jid;
      sides.brine.jid = (JSON.parse(ours.body) as { return: Array<{ jid: string }> }).return[0].jid;
      // Both jobs' returns are in once each master has logged them.
      await Promise.all([
        saltMaster.waitFor(`Got return from bm1 for job ${sides.salt.jid}`, 30_000),
        cluster.master!.waitFor(`Got return from pyminion for job ${sides.brine.jid}`, 30_000),
      ]);
      await both({ name: 'runner jobs.lookup_jid', auth: true, body: '{"client": "runner", "fun": "jobs.lookup_jid", "jid": "{JID}"}' });
      await both({ name: 'GET /jobs/<jid>', auth: true, path: '/jobs/{JID}' });
    });

    it('/run with eauth in the body, /token, /hook, and logout', async () => {
      const run = '[{"client": "local", "tgt": "{M}", "fun": "test.ping", "username": "apiuser", "password": "apipass", "eauth": "file"}]';
      await atOnce([
        { name: '/run', path: '/run', body: run },
        { name: '/run bad password', path: '/run', body: run.replace('apipass', 'wrong') },
        { name: '/token', path: '/token', body: LOGIN },
        { name: '/hook', path: '/hook/interop/build', auth: true, body: '{"ok": true}' },
        { name: '/hook without token', path: '/hook/interop/build', body: '{"ok": true}' },
      ]);
      await both({ name: 'logout', path: '/logout', auth: true, body: '{}' });
      await both({ name: 'after logout', auth: true, body: '{"client": "local", "tgt": "*", "fun": "test.ping"}' });
    });
  });
});
