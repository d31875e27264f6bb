/**
 * salt-api's HTTP server: Salt's rest_cherrypy URL map (salt/netapi/rest_cherrypy/app.py) on
 * Fastify. The routes are in routes.ts; this file holds what every request goes through: raw
 * bodies up to max_request_body_size, CORS headers, the `html_override` of the app, the session
 * look-up, the error pages, and the per-address login limit.
 */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { BrineError } from '../core/errors';
import type { LoadAuth, TokenData } from './auth';
import { HttpError } from './http-error';
import { corsHeaders, sendData, sendError } from './http';
import type { Netapi } from './netapi';
import type { ApiOptions } from './options';
import { registerRoutes } from './routes';
import { newSessionId, type SessionStore } from './sessions';
import { RequestPool } from './request-pool';

export interface ApiLogger {
  debug(msg: string): void;
  info(msg: string): void;
  warning(msg: string): void;
  error(msg: string): void;
}

/** The master's event bus as salt-api sees it. */
export interface EventBus {
  /** Listens to every event; `ready` resolves once none can be missed any more. */
  listen(): {
    ready: Promise<void>;
    next(timeoutMs: number): Promise<{ tag: string; data: Record<string, unknown> } | null>;
    close(): void;
  };
  fire(tag: string, data: Record<string, unknown>): Promise<void>;
}

export interface ApiDeps {
  options: ApiOptions;
  netapi: Netapi;
  auth: LoadAuth;
  sessions: SessionStore;
  events: EventBus;
  log: ApiLogger;
  /** Whether the master is up (its sockets exist); Salt answers 503 otherwise. */
  masterRunning(): boolean;
  /** Python repr, to order non-string permissions as Salt does. */
  repr(value: unknown): string;
}

/** What a request knows of its session. */
export interface SessionInfo {
  /** The id the response's cookie carries: the caller's when it is live, else a fresh one. */
  id: string;
  token?: TokenData;
}

/** The session id a request names: a non-empty X-Auth-Token header, else the session_id cookie. */
export function requestedSessionId(req: FastifyRequest): string | undefined {
  const header = req.headers['x-auth-token'];
  if (typeof header === 'string' && header !== '') return header;
  const cookie = req.headers.cookie;
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === 'session_id') return v.join('=');
  }
  return undefined;
}

/** Counters for GET /stats (CherryPy's cpstats, in its shape). */
export class Stats {
  readonly started = Date.now() / 1000;
  requests = 0;
  bytesRead = 0;
  bytesWritten = 0;
  current = 0;
}

export function createApiServer(deps: ApiDeps): FastifyInstance & { requestPool: RequestPool } {
  const { options } = deps;
  const app = Fastify({
    logger: false,
    bodyLimit: options.maxRequestBodySize,
    https: options.disableSsl ? null : { cert: readFileSync(options.sslCrt as string), key: readFileSync(options.sslKey as string) },
    // Salt's trailing_slash tool: /minions/ and /minions are the same.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    connectionTimeout: options.expireResponses ? options.responseTimeoutSec * 1000 : 0,
  }) as unknown as FastifyInstance;
  const stats = new Stats();

  // Every body arrives as text; the route decides how to read it (hypermedia_in).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  // thread_pool: a request holds its place until its response is done or its connection closes.
  const pool = new RequestPool(options.threadPool);
  const releases = new WeakMap<object, () => void>();
  app.addHook('onRequest', async (req, reply) => {
    const release = await pool.acquire();
    releases.set(req.raw, release);
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
  });
  app.addHook('onRequest', async (req, reply) => {
    stats.requests++;
    stats.current++;
    corsHeaders(req, reply);
  });
  app.addHook('onResponse', async (req, reply) => {
    releases.get(req.raw)?.();
    stats.current--;
    stats.bytesRead += Number(req.headers['content-length'] ?? 0);
    stats.bytesWritten += Number(reply.getHeader('content-length') ?? 0);
    deps.log.debug(`${req.ip} ${req.method} ${req.url.split('?')[0]} ${reply.statusCode}`);
  });

  // html_override: a browser asking any API path for text/html gets the app (SaltGUI reloads).
  if (options.app) {
    const appFile = options.app;
    app.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?')[0];
      if (req.method !== 'GET' || path.startsWith(options.appPath) || path.startsWith(options.staticPath)) return;
      const accept = req.headers.accept;
      if (accept === undefined || accept === '*/*') return;
      if (new Negotiator({ headers: { accept } }).mediaType(['text/html']) !== 'text/html') return;
      await reply.code(200).header('Allow', 'GET, HEAD').header('Content-Type', 'text/html;charset=utf-8').send(readFileSync(appFile));
    });
  }

  // CORS preflight. Salt 3007 answers it 500 (its cors_tool touches the session before the
  // session tool exists); brine answers 200, as Salt means to.
  app.options('*', async (req, reply) => {
    const method = req.headers['access-control-request-method'];
    if (typeof method === 'string' && ['GET', 'POST'].includes(method)) {
      reply.header('Access-Control-Allow-Methods', 'GET, POST');
      reply.header('Access-Control-Allow-Headers', 'Content-Type, X-Auth-Token, X-Requested-With');
      reply.header('Connection', 'keep-alive');
      reply.header('Access-Control-Max-Age', '1400');
    }
    return reply.code(200).send('');
  });

  app.setNotFoundHandler((req, reply) => {
    sendError(reply, new HttpError(404, `The path '${req.url.split('?')[0]}' was not found.`));
  });

  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof HttpError) return sendError(reply, err);
    const fastifyCode = (err as { code?: string }).code;
    if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(
        reply,
        new HttpError(413, `The entity sent with the request exceeds the maximum allowed bytes (${options.maxRequestBodySize}).`),
      );
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendError(reply, new HttpError(status, (err as Error).message));
    // hypermedia_handler: anything else is a 500 with a JSON body; the cause goes to the log only.
    const message = err instanceof BrineError ? err.message : String((err as Error)?.stack ?? err);
    deps.log.error(`Error while processing request for ${req.url.split('?')[0]}: ${message}`);
    try {
      return sendData(req, reply, { status: 500, return: options.debug ? message : 'An unexpected error occurred' }, 500);
    } catch {
      return sendError(reply, new HttpError(500));
    }
  });

  app.decorate('requestPool', pool);
  registerRoutes(app, deps, stats, {
    /** The live session of a request, and the id its cookie should carry. */
    session(req: FastifyRequest): SessionInfo {
      const id = requestedSessionId(req);
      const session = id === undefined ? undefined : deps.sessions.get(id);
      if (!session || id === undefined) return { id: newSessionId() };
      const token = deps.auth.getToken(session.token);
      if (!token) {
        deps.sessions.delete(id);
        return { id: newSessionId() };
      }
      return { id, token };
    },
  });
  return app as FastifyInstance & { requestPool: RequestPool };
}
