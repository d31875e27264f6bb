/**
 * A brine master with web1 (role: web) and db1 (role: db) and salt-api in front of it, set up as
 * the salt-api corpus was captured (../shared/salt-api/README.md): file eauth with apiuser
 * (everything) and limited (test.ping), the same nodegroups, states, pillar and mine_functions, and
 * a copy of SaltGUI as the app.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiDaemon } from '../../src/api/api-daemon';
import { loadMasterConfig } from '../../src/core/config';
import { Cluster, REPO, freePort } from './cluster';

export const SALTGUI = join(REPO, '..', 'shared', 'saltgui');
/** The capture's states (hello, orch.ping) and pillar (site_name, db_password). */
const SRV_FILES = join(REPO, '..', 'shared', 'salt-api', 'srv-files');

export class ApiCluster {
  api!: ApiDaemon;
  port = 0;
  pkiDir = '';

  private constructor(readonly cluster: Cluster) {}

  static async create(): Promise<ApiCluster> {
    const port = await freePort();
    const cluster = await Cluster.create({
      netapi_enable_clients: ['local', 'local_async', 'local_batch', 'runner', 'runner_async', 'wheel', 'wheel_async'],
      external_auth: {
        file: { '^filename': 'ROOT/htpasswd', '^filetype': 'text', limited: ['test.ping'], apiuser: ['.*', '@runner', '@wheel', '@jobs'] },
      },
      nodegroups: { webgroup: 'G@role:web', allgroup: 'L@web1,db1' },
      file_roots: { base: [join(SRV_FILES, 'states')] },
      pillar_roots: { base: [join(SRV_FILES, 'pillar')] },
      rest_cherrypy: {
        port,
        host: '127.0.0.1',
        disable_ssl: true,
        collect_stats: true,
        app: 'ROOT/saltgui/index.html',
        static: 'ROOT/saltgui/static',
        static_path: '/static',
      },
    });
    const self = new ApiCluster(cluster);
    self.port = port;
    writeFileSync(join(cluster.root, 'htpasswd'), 'apiuser:apipass\nlimited:limitedpass\n');
    // A copy of SaltGUI, as the capture served one (tests add files such as salt-auth.txt to it).
    cpSync(SALTGUI, join(cluster.root, 'saltgui'), { recursive: true });
    const masterFile = join(cluster.masterDir, 'master');
    writeFileSync(masterFile, readFileSync(masterFile, 'utf8').replace(/ROOT/g, cluster.root));
    await cluster.startMaster();
    await cluster.startAccepted([
      { id: 'web1', grains: { role: 'web' }, config: { mine_functions: { 'test.ping': [] } } },
      { id: 'db1', grains: { role: 'db' }, config: { mine_functions: { 'test.ping': [] } } },
    ]);
    await self.startApi();
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts salt-api in this process on the master's configuration, with rest_cherrypy overrides. */
  async startApi(overrides: Record<string, unknown> = {}): Promise<void> {
    const { config } = loadMasterConfig(this.cluster.masterDir);
    config.rest_cherrypy = { ...(config.rest_cherrypy as Record<string, unknown>), ...overrides };
    this.pkiDir = String(config.pki_dir);
    this.api = new ApiDaemon(config, { debug: () => undefined, info: () => undefined, warning: () => undefined, error: () => undefined });
    await this.api.start();
  }

  async stop(): Promise<void> {
    await this.api?.stop();
    await this.cluster.stop();
  }
}
