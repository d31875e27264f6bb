/**
 * `salt-api -d` as an operator runs it: in the background with its pid file, serving HTTPS from
 * ssl_crt/ssl_key (a self-signed certificate made here by the openssl CLI), then stopped by the
 * pid in its pid file, next to a running master.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { Cluster, freePort, waitForFileText } from '../support/cluster';

let cluster: Cluster;
let port: number;
let cert: string;
let pid = 0;

const apiRoot = () => join(cluster.root, 'master');
const pidFile = () => join(apiRoot(), 'var', 'run', 'salt-api.pid');
const logFile = () => join(apiRoot(), 'var', 'log', 'salt', 'api');

beforeAll(async () => {
  port = await freePort();
  cluster = await Cluster.create({
    log_level_logfile: 'info',
    external_auth: { auto: { '*': ['test.ping'] } },
    netapi_enable_clients: ['local'],
    rest_cherrypy: { port, host: '127.0.0.1', ssl_crt: 'CERTDIR/api.crt', ssl_key: 'CERTDIR/api.key' },
  });
  const crt = join(cluster.root, 'api.crt');
  const key = join(cluster.root, 'api.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(crt, 'utf8');
  const masterFile = join(cluster.masterDir, 'master');
  writeFileSync(masterFile, readFileSync(masterFile, 'utf8').replace(/CERTDIR/g, cluster.root));
  await cluster.startMaster();
}, 60_000);

afterAll(async () => {
  if (pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // stopped by the test
    }
  }
  await cluster?.stop();
});

/** One HTTPS request that trusts only the test's certificate. */
function https(method: string, path: string, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        ca: cert,
        // A fresh connection each time: Node 20's global agent keeps sockets alive, and a request
        // on a socket the stopping server closed fails with "socket hang up", not ECONNREFUSED.
        agent: false,
        headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('salt-api -d', () => {
  it('serves HTTPS in the background with its pid file, and stops by that pid', async () => {
    const started = await cluster.run('salt-api', ['-d']);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    pid = Number(readFileSync(pidFile(), 'utf8'));
    expect(started.stdout).toBe(`salt-api started in the background, pid ${pid}\n`);

    const root = await https('GET', '/');
    expect(root.status).toBe(200);
    expect(JSON.parse(root.body)).toMatchObject({ return: 'Welcome' });
    const login = await https('POST', '/login', JSON.stringify({ username: 'ops', password: 'any', eauth: 'auto' }));
    expect(login.status).toBe(200);
    expect(login.headers['x-auth-token']).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.parse(login.body).return[0]).toMatchObject({ user: 'ops', eauth: 'auto', perms: ['test.ping'] });
    await waitForFileText(logFile(), `salt-api listening on https://127.0.0.1:${port}`);

    process.kill(pid, 'SIGTERM');
    await waitForFileText(logFile(), 'Shutting down the Salt API');
    await new Promise<void>((resolve) => {
      const check = () => (existsSync(pidFile()) ? setImmediate(check) : resolve());
      check();
    });
    await expect(https('GET', '/')).rejects.toThrow(/ECONNREFUSED/);
    pid = 0;
  });
});
