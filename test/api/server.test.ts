/**
 * salt-api's HTTP layer without a master: fastify's inject, a real LoadAuth and SessionStore,
 * and a Netapi over in-memory jobs and functions.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { LoadAuth } from '../../src/api/auth';
import { Netapi, type JobRunner } from '../../src/api/netapi';
import type { ApiOptions } from '../../src/api/options';
import { createApiServer } from '../../src/api/server';
import { SessionStore } from '../../src/api/sessions';
import { pyRepr } from '../../src/core/pycompat';

const dir = mkdtempSync(join(tmpdir(), 'brine-api-'));
const logs: string[] = [];
const log = {
  debug: (m: string) => logs.push(m),
  info: (m: string) => logs.push(m),
  warning: (m: string) => logs.push(m),
  error: (m: string) => logs.push(m),
};
const fired: Array<{ tag: string; data: Record<string, unknown> }> = [];

const jobs: JobRunner = {
  async run(job) {
    return { jid: '20261203000000000001', returns: [{ id: 'web1', return: job.fun === 'test.ping' ? true : job.arg, retcode: 0 }] };
  },
  async runAsync() {
    return { jid: '20261203000000000002', minions: ['web1'] };
  },
  async *runBatch() {
    yield { id: 'web1', return: true };
  },
};

function options(over: Partial<ApiOptions> = {}): ApiOptions {
  return {
    port: 0,
    host: '127.0.0.1',
    disableSsl: true,
    debug: false,
    collectStats: true,
    appPath: '/app',
    staticPath: '/static',
    webhookUrl: '/hook',
    webhookDisableAuth: false,
    statsDisableAuth: false,
    expireResponses: true,
    responseTimeoutSec: 300,
    maxRequestBodySize: 2000,
    threadPool: 100,
    sessionTimeoutMin: 600,
    loginRateLimit: 5,
    ...over,
  };
}

let app: FastifyInstance;
beforeAll(() => {
  writeFileSync(join(dir, 'htpasswd'), 'apiuser:apipass\nlimited:limitedpass\n');
  const auth = new LoadAuth({
    externalAuth: { file: { '^filename': join(dir, 'htpasswd'), apiuser: ['.*', '@runner', '@wheel'], limited: ['test.ping'] } },
    tokenExpire: 3600,
    tokenDir: join(dir, 'tokens'),
    log,
  });
  const netapi = new Netapi({
    enabledClients: ['local', 'local_async', 'runner', 'wheel'],
    auth,
    resolveTarget: () => new Set(['web1']),
    jobs,
    runners: new Map([['manage.up', { doc: 'up', call: async () => ['web1'] }]]),
    wheels: new Map(),
    background: { jid: () => '20261203000000000003', fire: (tag, data) => fired.push({ tag, data }) },
    log,
  });
  app = createApiServer({
    options: options(),
    netapi,
    auth,
    sessions: new SessionStore(36000),
    events: {
      listen: () => {
        throw new Error('no bus here');
      },
      fire: async (tag, data) => void fired.push({ tag, data }),
    },
    log,
    masterRunning: () => true,
    repr: pyRepr,
  });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function login(user = 'apiuser', password = 'apipass', ip = '127.0.0.1'): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json' },
    payload: { username: user, password, eauth: 'file' },
  });
  expect(res.statusCode).toBe(200);
  return res.headers['x-auth-token'] as string;
}

describe('salt-api HTTP', () => {
  it('runs lowstate for a logged-in session and refuses without one', async () => {
    const token = await login();
    const ok = await app.inject({
      method: 'POST',
      url: '/',
      headers: { 'x-auth-token': token, 'content-type': 'application/json' },
      payload: '[{"client":"local","tgt":"*","fun":"test.ping"}]',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('{"return": [{"web1": true}]}');
    expect(ok.headers['content-type']).toBe('application/json');
    const none = await app.inject({
      method: 'POST',
      url: '/',
      headers: { 'content-type': 'application/json' },
      payload: '[{"client":"local","tgt":"*","fun":"test.ping"}]',
    });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toBe('text/html;charset=utf-8');
  });

  it('never takes X-Auth-Token from the query string of POST /', async () => {
    const token = await login();
    const res = await app.inject({
      method: 'POST',
      url: `/?token=${token}&X-Auth-Token=${token}`,
      headers: { 'content-type': 'application/json' },
      payload: '[{"client":"local","tgt":"*","fun":"test.ping"}]',
    });
    expect(res.statusCode).toBe(401);
  });

  it('answers the CORS preflight 200 with the headers Salt means to send (Salt 3007 answers 500)', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/',
      headers: { origin: 'http://example.org', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://example.org');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(res.headers['access-control-allow-headers']).toBe('Content-Type, X-Auth-Token, X-Requested-With');
    expect(res.headers['access-control-max-age']).toBe('1400');
  });

  it('limits request bodies to max_request_body_size', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/run',
      headers: { 'content-type': 'application/json' },
      payload: `[${'"x",'.repeat(1000)}"x"]`,
    });
    expect(res.statusCode).toBe(413);
  });

  it('limits logins per client address, and logs neither passwords nor tokens', async () => {
    const token = await login('limited', 'limitedpass', '10.9.9.9');
    for (let i = 0; i < 4; i++)
      await app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '10.9.9.9',
        headers: { 'content-type': 'application/json' },
        payload: { username: 'apiuser', password: 'wrong-pw', eauth: 'file' },
      });
    const limited = await app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '10.9.9.9',
      headers: { 'content-type': 'application/json' },
      payload: { username: 'apiuser', password: 'apipass', eauth: 'file' },
    });
    expect(limited.statusCode).toBe(429);
    expect(await login('apiuser', 'apipass', '10.9.9.10')).toMatch(/^[0-9a-f]{40}$/); // another address is not affected
    const text = logs.join('\n');
    expect(text).not.toContain('wrong-pw');
    expect(text).not.toContain('limitedpass');
    expect(text).not.toContain(token);
  });

  it('checks ACLs: a limited user may ping but not run commands, runners or wheel', async () => {
    const token = await login('limited', 'limitedpass', '10.0.0.7');
    const call = (body: string) =>
      app.inject({ method: 'POST', url: '/', headers: { 'x-auth-token': token, 'content-type': 'application/json' }, payload: body });
    expect((await call('{"client":"local","tgt":"*","fun":"test.ping"}')).statusCode).toBe(200);
    const cmd = await call('{"client":"local","tgt":"*","fun":"cmd.run","arg":["id"]}');
    expect(cmd.statusCode).toBe(401);
    expect(cmd.body).toContain('<p>Authorization error occurred.</p>');
    const runner = await call('{"client":"runner","fun":"manage.up"}');
    expect(runner.statusCode).toBe(401);
    expect(runner.body).toContain('<p>Authentication failure of type "token" occurred for user limited.</p>');
  });

  it('fires webhooks on the event bus as salt/netapi/hook/<path>, without the auth headers', async () => {
    const token = await login('apiuser', 'apipass', '10.0.0.8');
    const res = await app.inject({
      method: 'POST',
      url: '/hook/build/done',
      headers: { 'x-auth-token': token, 'content-type': 'application/json' },
      payload: '{"ok":true}',
    });
    expect(res.body).toBe('{"success": true}');
    const ev = fired.find((e) => e.tag === 'salt/netapi/hook/build/done')!;
    expect(ev.data).toMatchObject({ body: '{"ok":true}', post: { ok: true } });
    expect(JSON.stringify(ev.data.headers)).not.toContain(token);
  });

  it('answers unknown paths with CherryPy 404 pages', async () => {
    const res = await app.inject({ method: 'GET', url: '/nosuchpath' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain("<p>The path '/nosuchpath' was not found.</p>");
  });
});

describe('thread_pool', () => {
  it('handles at most thread_pool requests at once; the others wait in order', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const entered: string[] = [];
    const auth = new LoadAuth({ externalAuth: { auto: { '*': ['@runner'] } }, tokenExpire: 3600, tokenDir: join(dir, 'tokens-pool'), log });
    const netapi = new Netapi({
      enabledClients: ['runner'],
      auth,
      resolveTarget: () => new Set(),
      jobs,
      runners: new Map([
        ['slow.one', { doc: '', call: async () => (entered.push('slow'), await gate, 'slow done') }],
        ['fast.one', { doc: '', call: async () => (entered.push('fast'), 'fast done') }],
      ]),
      wheels: new Map(),
      background: { jid: () => '20261203000000000004', fire: () => undefined },
      log,
    });
    const small = createApiServer({
      options: options({ threadPool: 1 }),
      netapi,
      auth,
      sessions: new SessionStore(600),
      events: {
        listen: () => {
          throw new Error('no bus');
        },
        fire: async () => undefined,
      },
      log,
      masterRunning: () => true,
      repr: pyRepr,
    });
    try {
      const run = (fun: string) =>
        small.inject({
          method: 'POST',
          url: '/run',
          headers: { 'content-type': 'application/json' },
          payload: { client: 'runner', fun, username: 'u', password: 'p', eauth: 'auto' },
        });
      const slow = run('slow.one');
      await vi.waitFor(() => expect(entered).toEqual(['slow']));
      const fast = run('fast.one');
      await vi.waitFor(() => expect(small.requestPool.waiting).toBe(1));
      expect(entered).toEqual(['slow']); // the second request waits for the place the first holds
      open();
      expect((await slow).body).toBe('{"return": ["slow done"]}');
      expect((await fast).body).toBe('{"return": ["fast done"]}');
      expect(entered).toEqual(['slow', 'fast']);
      expect(small.requestPool.running).toBe(0);
    } finally {
      await small.close();
    }
  });
});
