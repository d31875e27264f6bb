/**
 * salt-api as a daemon next to the master: reads the master's configuration, reaches the master
 * as the salt CLI does (root key, request port, event bus), and serves rest_cherrypy's API.
 *
 *   const api = new ApiDaemon(config, logger);
 *   await api.start();   // listening on rest_cherrypy:port
 *   await api.stop();
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { MasterConfig } from '../core/config';
import { JidFactory } from '../core/protocol/jid';
import { KeyStore } from '../core/master/key-store';
import { LocalJobs } from '../core/client/local-jobs';
import { pyRepr } from '../core/pycompat';
import { MasterFunctions, type MasterFunctionsOptions } from '../runners/master-functions';
import { LoadAuth } from './auth';
import { MasterEventBus } from './event-bus';
import { Netapi } from './netapi';
import { apiOptions, enabledClients, type ApiOptions } from './options';
import { createApiServer, type ApiLogger } from './server';
import { SessionStore } from './sessions';

/** Salt's default token lifetime (token_expire): 12 hours. */
const DEFAULT_TOKEN_EXPIRE = 43200;

export class ApiDaemon {
  readonly options: ApiOptions;
  private server?: FastifyInstance;
  private readonly events: MasterEventBus;
  private sweep?: NodeJS.Timeout;
  private readonly sessions: SessionStore;

  constructor(
    private readonly master: MasterConfig,
    private readonly log: ApiLogger,
    /** What the master functions get besides the master's configuration (the master's pillar plugins). */
    private readonly extras: Pick<MasterFunctionsOptions, 'pillarPlugins'> = {},
  ) {
    const { options, warnings } = apiOptions(master);
    for (const w of warnings) log.warning(w);
    this.options = options;
    this.events = new MasterEventBus(master.sock_dir as string);
    this.sessions = new SessionStore(options.sessionTimeoutMin * 60, options.sessionDir);
  }

  /** The address salt-api listens on, once started. */
  get url(): string {
    const scheme = this.options.disableSsl ? 'http' : 'https';
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `${scheme}://${host}:${this.options.port}`;
  }

  async start(): Promise<void> {
    const master = this.master as MasterConfig & { cachedir: string; sock_dir: string; pki_dir: string; token_dir: string };
    const keys = new KeyStore({ pkiDir: master.pki_dir });
    const jobs = new LocalJobs({ master, timeoutSec: master.timeout, gatherJobTimeoutSec: master.gather_job_timeout });
    const log = this.log;
    const apiLog = log;
    const auth = new LoadAuth({
      externalAuth: (master.external_auth ?? {}) as Record<string, unknown>,
      tokenExpire: typeof master.token_expire === 'number' ? master.token_expire : DEFAULT_TOKEN_EXPIRE,
      tokenDir: master.token_dir,
      log: apiLog,
    });
    const functions = await MasterFunctions.load({ master, keys, jobs, logger: log, ...this.extras });
    const { runners, wheels, resolveTarget } = functions;
    const jids = new JidFactory();
    await this.events.open();
    const netapi = new Netapi({
      enabledClients: enabledClients(master),
      auth,
      resolveTarget,
      jobs,
      runners,
      wheels,
      background: { jid: () => jids.next(), fire: (tag, data) => void this.events.fire(tag, data).catch(() => undefined) },
      log: apiLog,
    });
    const server = createApiServer({
      options: this.options,
      netapi,
      auth,
      sessions: this.sessions,
      events: this.events,
      log: apiLog,
      masterRunning: () => existsSync(join(master.sock_dir, 'master_event_pub.ipc')),
      repr: (v) => pyRepr(v),
    });
    await server.listen({ port: this.options.port, host: this.options.host });
    this.server = server;
    this.sweep = setInterval(() => this.sessions.sweep(), 60_000);
    this.sweep.unref();
    if (this.options.disableSsl && !['127.0.0.1', '::1', 'localhost'].includes(this.options.host)) {
      log.warning(
        `salt-api serves plain HTTP on ${this.options.host}: passwords and tokens cross the network in clear; set ssl_crt and ssl_key`,
      );
    }
    log.info(`salt-api listening on ${this.url}`);
  }

  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    await this.server?.close();
    this.server = undefined;
    await this.events.close();
  }
}
