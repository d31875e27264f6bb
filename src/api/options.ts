/**
 * salt-api's settings: the `rest_cherrypy:` block of the master configuration, with Salt 3007's
 * defaults (salt/netapi/rest_cherrypy/app.py `API.get_conf`), plus the master options the API reads.
 */
import { ConfigError } from '../core/errors';
import type { MasterConfig } from '../core/config';

export interface ApiOptions {
  port: number;
  host: string;
  /** Serve plain HTTP. Salt's default is HTTPS (ssl_crt/ssl_key required). */
  disableSsl: boolean;
  sslCrt?: string;
  sslKey?: string;
  debug: boolean;
  collectStats: boolean;
  /** Path of an HTML file served at appPath and for `GET /` with `Accept: text/html`. */
  app?: string;
  appPath: string;
  /** A directory served at staticPath. */
  static?: string;
  staticPath: string;
  webhookUrl: string;
  webhookDisableAuth: boolean;
  statsDisableAuth: boolean;
  /** Seconds a request may run before it is answered 504 (CherryPy's response timeout). */
  expireResponses: boolean;
  responseTimeoutSec: number;
  maxRequestBodySize: number;
  /** How many requests run at once; more wait (CherryPy's thread pool). */
  threadPool: number;
  /** Session lifetime in minutes (CherryPy's tools.sessions.timeout: 10 hours). */
  sessionTimeoutMin: number;
  /** brine: a directory where login sessions are kept, so that they survive a salt-api restart. */
  sessionDir?: string;
  /** Per-address login attempts allowed per minute (brine; Salt has no limit). */
  loginRateLimit: number;
  /** `api_acl` and `authorized_ips` as Salt reads them. */
  apiAcl?: { users?: Record<string, string[]> };
  authorizedIps?: string[];
}

const KNOWN = new Set([
  'port',
  'host',
  'disable_ssl',
  'ssl_crt',
  'ssl_key',
  'debug',
  'collect_stats',
  'app',
  'app_path',
  'static',
  'static_path',
  'webhook_url',
  'webhook_disable_auth',
  'stats_disable_auth',
  'expire_responses',
  'max_request_body_size',
  'thread_pool',
  'socket_queue_size',
  'queue_size',
  'session_dir',
  'login_rate_limit',
  'api_acl',
  'authorized_ips',
  'log_access_file',
  'log_error_file',
  'enable_sessions',
  'favicon',
  'response_timeout',
  'ssl_chain',
]);

function bool(v: unknown, name: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false|yes|no)$/i.test(v)) return /^(true|yes)$/i.test(v);
  throw new ConfigError('BAD_OPTION', `rest_cherrypy: ${name} must be True or False, not ${JSON.stringify(v)}`);
}

function int(v: unknown, name: string, def: number, min = 0): number {
  if (v === undefined || v === null) return def;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) {
    throw new ConfigError('BAD_OPTION', `rest_cherrypy: ${name} must be a whole number >= ${min}, not ${JSON.stringify(v)}`);
  }
  return n;
}

function str(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new ConfigError('BAD_OPTION', `rest_cherrypy: ${name} must be a non-empty string`);
  return v;
}

function urlPath(v: unknown, name: string, def: string): string {
  const s = str(v, name) ?? def;
  return `/${s.replace(/^\/+/, '').replace(/\/+$/, '')}`;
}

/** Reads `rest_cherrypy:`; an unusable value is a ConfigError naming the option. */
export function apiOptions(master: MasterConfig): { options: ApiOptions; warnings: string[] } {
  const raw = master.rest_cherrypy;
  if (raw === undefined || raw === null) {
    throw new ConfigError('NO_API_CONFIG', 'the master configuration has no rest_cherrypy: section', {
      hint: 'add e.g. "rest_cherrypy: {port: 8000, host: 127.0.0.1, disable_ssl: True}" to the master config',
    });
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('BAD_OPTION', 'rest_cherrypy must be a mapping of settings');
  const r = raw as Record<string, unknown>;
  const warnings = Object.keys(r)
    .filter((k) => !KNOWN.has(k))
    .map((k) => `rest_cherrypy: unknown setting '${k}' is ignored`);
  const options: ApiOptions = {
    port: int(r.port, 'port', 8000, 1),
    host: str(r.host, 'host') ?? '0.0.0.0',
    disableSsl: bool(r.disable_ssl, 'disable_ssl', false),
    sslCrt: str(r.ssl_crt, 'ssl_crt'),
    sslKey: str(r.ssl_key, 'ssl_key'),
    debug: bool(r.debug, 'debug', false),
    collectStats: bool(r.collect_stats, 'collect_stats', false),
    app: str(r.app, 'app'),
    appPath: urlPath(r.app_path, 'app_path', 'app'),
    static: str(r.static, 'static'),
    staticPath: urlPath(r.static_path, 'static_path', 'static'),
    webhookUrl: urlPath(r.webhook_url, 'webhook_url', 'hook'),
    webhookDisableAuth: bool(r.webhook_disable_auth, 'webhook_disable_auth', false),
    statsDisableAuth: bool(r.stats_disable_auth, 'stats_disable_auth', false),
    expireResponses: bool(r.expire_responses, 'expire_responses', true),
    responseTimeoutSec: int(r.response_timeout, 'response_timeout', 300, 1),
    maxRequestBodySize: int(r.max_request_body_size, 'max_request_body_size', 1048576, 1),
    threadPool: int(r.thread_pool, 'thread_pool', 100, 1),
    sessionTimeoutMin: 600,
    sessionDir: str(r.session_dir, 'session_dir'),
    loginRateLimit: int(r.login_rate_limit, 'login_rate_limit', 30, 1),
    apiAcl: typeof r.api_acl === 'object' && r.api_acl !== null ? (r.api_acl as ApiOptions['apiAcl']) : undefined,
    authorizedIps: Array.isArray(r.authorized_ips) ? r.authorized_ips.map(String) : undefined,
  };
  if (!options.disableSsl && (!options.sslCrt || !options.sslKey)) {
    throw new ConfigError('NO_SSL_CERT', 'rest_cherrypy: HTTPS needs ssl_crt and ssl_key', {
      hint: 'set ssl_crt and ssl_key to a certificate and its key, or disable_ssl: True for loopback only',
    });
  }
  return { options, warnings };
}

/** Salt >= 3006 runs no netapi client unless `netapi_enable_clients` lists it. */
export function enabledClients(master: MasterConfig): string[] {
  const v = master.netapi_enable_clients;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError('BAD_OPTION', 'netapi_enable_clients must be a list of client names');
  return v.map(String);
}
