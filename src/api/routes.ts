/**
 * The URL map of rest_cherrypy: /, /login, /logout, /token, /run, /minions, /jobs, /keys,
 * /events, /hook, /stats, the app and its static files. Each handler does what its CherryPy
 * class does (salt/netapi/rest_cherrypy/app.py), with the same status codes and shapes.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { sortedPermissions, sumPermissions } from './acl';
import { HttpError } from './http-error';
import { expireSessionCookie, sendData, setSessionCookie } from './http';
import { chunksOf, toLowstate, unserializeBody, type Chunk } from './lowstate';
import { CLIENTS, Yielded } from './netapi';
import { streamEvents } from './events-stream';
import { keysTarball } from './keys-tarball';
import { requestedSessionId, type ApiDeps, type SessionInfo, type Stats } from './server';

/** Content types of the static files, as Python's mimetypes names them (CherryPy's staticdir). */
const STATIC_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/vnd.microsoft.icon',
};

interface Helpers {
  session(req: FastifyRequest): SessionInfo;
}

/** Logins per client address per minute: past the limit, 429 until the minute is over. */
class LoginLimiter {
  private readonly seen = new Map<string, { start: number; count: number }>();
  constructor(private readonly perMinute: number) {}
  allow(address: string, now = Date.now()): boolean {
    const entry = this.seen.get(address);
    if (!entry || now - entry.start > 60_000) {
      if (this.seen.size > 10_000) this.seen.clear();
      this.seen.set(address, { start: now, count: 1 });
      return true;
    }
    entry.count++;
    return entry.count <= this.perMinute;
  }
}

function body(req: FastifyRequest): unknown {
  const raw = typeof req.body === 'string' ? req.body : '';
  return unserializeBody(req.headers['content-type'], raw);
}

function lowstateOf(req: FastifyRequest): Chunk[] {
  return chunksOf(toLowstate(body(req)));
}

export function registerRoutes(app: FastifyInstance, deps: ApiDeps, stats: Stats, helpers: Helpers): void {
  const { options, netapi, auth, sessions, log } = deps;
  const secure = !options.disableSsl;
  const limiter = new LoginLimiter(options.loginRateLimit);

  /** salt_token + salt_auth: a live session or 401; the cookie is renewed either way. */
  const requireSession = (req: FastifyRequest, reply: FastifyReply): SessionInfo & { token: NonNullable<SessionInfo['token']> } => {
    const s = helpers.session(req);
    setSessionCookie(reply, s.id, secure);
    if (!s.token) throw new HttpError(401);
    reply.header('Cache-Control', 'private');
    return s as SessionInfo & { token: NonNullable<SessionInfo['token']> };
  };

  const ensureMaster = () => {
    if (!deps.masterRunning()) throw new HttpError(503, 'Salt Master is not available.');
  };

  /** exec_lowstate: each chunk run in turn, with the session's token when there is one. */
  const execLowstate = async (chunks: Chunk[], token?: string, client?: string): Promise<unknown[]> => {
    ensureMaster();
    const out: unknown[] = [];
    for (const chunk of chunks) {
      if (token !== undefined) chunk.token = token;
      if ('token' in chunk && !(typeof chunk.token === 'string' && /^[0-9a-fA-F]+$/.test(chunk.token)))
        throw new HttpError(401, 'Invalid token');
      if (client !== undefined) chunk.client = client;
      if ('arg' in chunk && !Array.isArray(chunk.arg)) chunk.arg = [chunk.arg];
      const ret = await netapi.run(chunk);
      // A generator client (local_batch) yields several entries, as Salt's exec_lowstate does.
      if (ret instanceof Yielded) out.push(...ret.items);
      else out.push(ret);
    }
    return out;
  };

  app.get('/', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    return sendData(req, reply, { return: 'Welcome', clients: [...CLIENTS] });
  });

  app.post('/', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = requireSession(req, reply);
    return sendData(req, reply, { return: await execLowstate(lowstateOf(req), s.token.token) });
  });

  app.get('/login', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    setSessionCookie(reply, helpers.session(req).id, secure);
    reply.header('Www-Authenticate', 'Session');
    return sendData(req, reply, { status: null, return: 'Please log in' });
  });

  app.post('/login', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = helpers.session(req);
    setSessionCookie(reply, s.id, secure);
    if (!limiter.allow(req.ip)) {
      log.warning(`Too many logins from ${req.ip}: refused for the rest of the minute`);
      throw new HttpError(429, 'Too many login attempts from this address; try again in a minute');
    }
    ensureMaster();
    const lowstate = toLowstate(body(req));
    const creds = (Array.isArray(lowstate) ? lowstate[0] : lowstate) as Record<string, unknown> | undefined;
    const username = creds?.username;
    if (!apiAclAllows(options.apiAcl, typeof username === 'string' ? username : undefined, req.ip)) throw new HttpError(401);
    const token = creds ? await auth.mkToken(creds) : null;
    if (!token) {
      log.warning(`Login failed for user ${typeof username === 'string' ? username : '?'} from ${req.ip}`);
      throw new HttpError(401, 'Could not authenticate using provided credentials');
    }
    sessions.create(s.id, token.token);
    reply.header('X-Auth-Token', s.id);
    const eauthConfig = auth.eauthConfig(token.eauth) ?? {};
    const perms = sortedPermissions(sumPermissions(eauthConfig, token.name, token.groups), deps.repr);
    return sendData(req, reply, {
      return: [
        {
          token: s.id,
          expire: token.expire,
          start: token.start,
          user: token.name,
          eauth: token.eauth,
          perms: perms.length > 0 ? perms : {},
        },
      ],
    });
  });

  app.post('/logout', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = requireSession(req, reply);
    sessions.delete(s.id);
    expireSessionCookie(reply, helpers.session(req).id);
    return sendData(req, reply, { return: 'Your token has been cleared' });
  });

  app.post('/token', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    ensureMaster();
    const out: unknown[] = [];
    for (const creds of lowstateOf(req)) {
      if (!('username' in creds) || !('password' in creds) || !('eauth' in creds))
        throw new HttpError(400, 'Require "username", "password", and "eauth" params');
      const token = await auth.mkToken(creds);
      if (!token) throw new HttpError(401, 'Authentication error occurred.');
      out.push({ start: token.start, expire: token.expire, name: token.name, eauth: token.eauth, token: token.token });
    }
    return sendData(req, reply, out);
  });

  app.post('/run', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    return sendData(req, reply, { return: await execLowstate(lowstateOf(req)) });
  });

  const minionsGet = async (req: FastifyRequest<{ Params: { mid?: string } }>, reply: FastifyReply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = requireSession(req, reply);
    const chunk: Chunk = { client: 'local', tgt: req.params.mid || '*', fun: 'grains.items' };
    return sendData(req, reply, { return: await execLowstate([chunk], s.token.token) });
  };
  app.get('/minions', minionsGet);
  app.get('/minions/:mid', minionsGet);
  app.post('/minions', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = requireSession(req, reply);
    const jobs = (await execLowstate(lowstateOf(req), s.token.token, 'local_async')) as Array<Record<string, unknown>>;
    return sendData(
      req,
      reply,
      { return: jobs, _links: { jobs: jobs.filter((j) => j && j.jid).map((j) => ({ href: `/jobs/${String(j.jid)}` })) } },
      202,
    );
  });

  const jobsGet = async (req: FastifyRequest<{ Params: { jid?: string } }>, reply: FastifyReply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const s = requireSession(req, reply);
    const jid = req.params.jid;
    const chunk: Chunk = jid ? { client: 'runner', fun: 'jobs.list_job', jid } : { client: 'runner', fun: 'jobs.list_jobs' };
    const [info] = (await execLowstate([chunk], s.token.token)) as Array<Record<string, unknown>>;
    if (!jid) return sendData(req, reply, { return: [info] });
    const result = (info?.Result ?? {}) as Record<string, Record<string, unknown>>;
    const returns: Record<string, unknown> = {};
    for (const [minion, r] of Object.entries(result)) returns[minion] = r?.return;
    return sendData(req, reply, { info: [info], return: [returns] });
  };
  app.get('/jobs', jobsGet);
  app.get('/jobs/:jid', jobsGet);

  const keysGet = async (req: FastifyRequest<{ Params: { mid?: string } }>, reply: FastifyReply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    // Keys runs without the salt_auth tool: no session means no credentials, which netapi refuses.
    const s = helpers.session(req);
    setSessionCookie(reply, s.id, secure);
    const mid = req.params.mid;
    const chunk: Chunk = mid ? { client: 'wheel', fun: 'key.finger', match: mid } : { client: 'wheel', fun: 'key.list_all' };
    const [res] = (await execLowstate([chunk], s.token?.token)) as Array<{ data?: { return?: unknown } }>;
    return sendData(req, reply, { return: res?.data?.return ?? {} });
  };
  app.get('/keys', keysGet);
  app.get('/keys/:mid', keysGet);
  app.post('/keys', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD, POST');
    const [chunk] = lowstateOf(req);
    if (!chunk) throw new HttpError(400, 'POST /keys needs mid, username, password and eauth');
    chunk.client = 'wheel';
    chunk.fun = 'key.gen_accept';
    if ('mid' in chunk) {
      chunk.id_ = chunk.mid;
      delete chunk.mid;
    }
    const [res] = (await execLowstate([chunk])) as Array<{ data?: { return?: { pub?: string; priv?: string }; success?: boolean } }>;
    const ret = res?.data?.return;
    if (!res?.data?.success || !ret || typeof ret !== 'object')
      throw new HttpError(400, `The key of '${String(chunk.id_)}' could not be generated: ${String(res?.data?.return)}`);
    const tar = await keysTarball(String(ret.pub ?? ''), String(ret.priv ?? ''));
    return reply
      .code(200)
      .header('Content-Disposition', `attachment; filename="saltkeys-${String(chunk.id_)}.tar"`)
      .header('Content-Type', 'application/x-tar')
      .header('Cache-Control', 'no-cache')
      .send(tar);
  });

  app.get('/events', async (req: FastifyRequest<{ Querystring: { token?: string; salt_token?: string } }>, reply) => {
    reply.header('Allow', 'GET, HEAD');
    const s = helpers.session(req);
    // Salt's salt_token tool has already put an X-Auth-Token header where the cookie would be.
    const candidate = req.query.token ?? req.query.salt_token ?? requestedSessionId(req);
    const saltToken = eventsToken(deps, candidate);
    if (!saltToken) {
      setSessionCookie(reply, s.id, secure);
      throw new HttpError(401);
    }
    setSessionCookie(reply, typeof candidate === 'string' && deps.sessions.get(candidate) ? candidate : s.id, secure);
    return streamEvents(req, reply, deps, () => auth.getToken(saltToken) !== null);
  });

  app.post(`${options.webhookUrl}/*`, async (req: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    reply.header('Allow', 'POST');
    if (!options.webhookDisableAuth) requireSession(req, reply);
    const tag = ['salt', 'netapi', 'hook', ...req.params['*'].split('/').filter((p) => p !== '')].join('/');
    const data = body(req) ?? {};
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k.toLowerCase() !== 'x-auth-token' && k.toLowerCase() !== 'cookie')
        headers[k.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase())] = v;
    await deps.events.fire(tag, { body: typeof req.body === 'string' ? req.body : '', post: data, headers });
    return sendData(req, reply, { success: true });
  });

  app.get('/stats', async (req, reply) => {
    reply.header('Allow', 'GET, HEAD');
    if (!options.statsDisableAuth) requireSession(req, reply);
    const now = Date.now() / 1000;
    const uptime = Math.max(now - stats.started, 1e-6);
    return sendData(req, reply, {
      'CherryPy Applications': {
        Enabled: options.collectStats,
        'Bytes Read/Request': options.collectStats ? stats.bytesRead / Math.max(stats.requests, 1) : 0,
        'Bytes Read/Second': options.collectStats ? stats.bytesRead / uptime : 0,
        'Bytes Written/Request': options.collectStats ? stats.bytesWritten / Math.max(stats.requests, 1) : 0,
        'Bytes Written/Second': options.collectStats ? stats.bytesWritten / uptime : 0,
        'Current Time': now,
        'Current Requests': options.collectStats ? stats.current : 0,
        'Requests/Second': options.collectStats ? stats.requests / uptime : 0,
        'Server Version': 'brine',
        'Start Time': stats.started,
        'Total Bytes Read': options.collectStats ? stats.bytesRead : 0,
        'Total Bytes Written': options.collectStats ? stats.bytesWritten : 0,
        'Total Requests': options.collectStats ? stats.requests : 0,
        'Total Time': options.collectStats ? uptime : 0,
        Uptime: uptime,
        Requests: {},
        'Slow Queries': [],
      },
      [`Cheroot HTTPServer ${process.pid}`]: {
        Enabled: options.collectStats,
        'Bind Address': `('${options.host}', ${options.port})`,
        'Run time': options.collectStats ? uptime : -1,
        Accepts: options.collectStats ? stats.requests : 0,
        'Accepts/sec': options.collectStats ? stats.requests / uptime : 0,
        Queue: 0,
        Threads: options.threadPool,
        'Threads Idle': options.threadPool - stats.current,
        'Socket Errors': 0,
        Requests: options.collectStats ? stats.requests : 0,
        'Bytes Read': options.collectStats ? stats.bytesRead : 0,
        'Bytes Written': options.collectStats ? stats.bytesWritten : 0,
        'Work Time': options.collectStats ? uptime : 0,
        'Read Throughput': options.collectStats ? stats.bytesRead / uptime : 0,
        'Write Throughput': options.collectStats ? stats.bytesWritten / uptime : 0,
        'Worker Threads': {},
      },
    });
  });

  if (options.app) {
    const appFile = options.app;
    if (!existsSync(appFile) || !statSync(appFile).isFile())
      log.warning(`rest_cherrypy: app ${appFile} is not a file; ${options.appPath} will answer 404`);
    const serveApp = async (_req: FastifyRequest, reply: FastifyReply) => {
      reply.header('Allow', 'GET, HEAD');
      return reply.sendFile(basename(appFile), dirname(appFile));
    };
    app.register(fastifyStatic, { root: dirname(appFile), serve: false, decorateReply: true, cacheControl: false });
    app.addHook('onSend', async (req, reply, payload) => {
      const path = req.url.split('?')[0];
      if (reply.statusCode === 200 && (path === options.appPath || path.startsWith(`${options.appPath}/`)))
        reply.header('Content-Type', 'text/html;charset=utf-8');
      return payload;
    });
    app.get(options.appPath, serveApp);
    app.get(`${options.appPath}/*`, serveApp);
  }
  if (options.static) {
    app.register(fastifyStatic, {
      root: options.static,
      prefix: `${options.staticPath}/`,
      decorateReply: !options.app,
      index: false,
      wildcard: true,
      cacheControl: false,
    });
    // CherryPy's types (Python's mimetypes), without the charset `send` adds.
    app.addHook('onSend', async (req, reply, payload) => {
      const path = req.url.split('?')[0];
      if (reply.statusCode === 200 && path.startsWith(`${options.staticPath}/`)) {
        const type = STATIC_TYPES[extname(path).toLowerCase()];
        if (type) reply.header('Content-Type', type);
      }
      return payload;
    });
  }
}

/** Events._is_valid_token: a session id (its eauth token) or an eauth token itself, live. */
function eventsToken(deps: ApiDeps, candidate: unknown): string | undefined {
  if (typeof candidate !== 'string' || !/^[0-9a-fA-F]+$/.test(candidate)) return undefined;
  const session = deps.sessions.get(candidate);
  const saltToken = session ? session.token : candidate;
  return deps.auth.getToken(saltToken) ? saltToken : undefined;
}

/** rest_cherrypy's api_acl: which users may log in from which addresses. */
export function apiAclAllows(acl: { users?: Record<string, string[]> } | undefined, username: string | undefined, ip: string): boolean {
  const users = acl?.users;
  if (!users || Object.keys(users).length === 0) return true;
  const list =
    username !== undefined && Object.hasOwn(users, username) ? users[username] : Object.hasOwn(users, '*') ? users['*'] : undefined;
  if (!list) return false;
  return list.includes(ip) || list.includes('*');
}
