/**
 * The master's CPU per `_return` on its own, without sockets: N signed-in minions' return requests
 * (built as the minions build them) go through the real RequestHandler (session lookup, HMAC check,
 * decrypt, replay guard, the job check, the SQLite job cache in group commits, the event-bus
 * publish, the encrypted reply). What the scale bench's "master CPU per return" adds to this is
 * ZeroMQ's (the raw baseline's server CPU per reply) and the sign-in and publish work.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAesRequest, makeTok } from '../src/core/channel';
import { generateKeyPair, privateKeyFromPem } from '../src/core/crypto/rsa';
import { createLogging } from '../src/core/log';
import { AuthService } from '../src/core/master/auth';
import { SigningFile } from '../src/core/master/signing-file';
import { MasterEvents } from '../src/core/master/events';
import { ReturnBatcher } from '../src/core/master/job-cache/return-batcher';
import { SqliteJobCache } from '../src/core/master/job-cache/sqlite-cache';
import { PostgresJobCache, type PostgresOptions } from '../src/core/master/job-cache/postgres-cache';
import type { JobCache, JobInput, JobRecord, ReturnInput } from '../src/core/master/job-cache/types';
import { JobService } from '../src/core/master/jobs';
import { KeyStore } from '../src/core/master/key-store';
import { MineStore } from '../src/core/master/mine-store';
import { MinionDataCache } from '../src/core/master/minion-data-cache';
import { MinionRequests } from '../src/core/master/minion-requests';
import { MasterPillar } from '../src/core/master/pillar-service';
import { PublishKey } from '../src/core/master/publish-key';
import { ReplayGuard } from '../src/core/master/replay-guard';
import { RequestHandler } from '../src/core/master/request-handler';
import { inlineKeyOps, masterRsa } from '../src/core/master/master-rsa';
import { Sessions } from '../src/core/master/sessions';
import { MemoryTransport } from '../src/core/transport/memory';
import { startThrowawayPostgres, type ThrowawayPostgres } from './pg-sandbox';

/** Where the returns go: SQLite, a PostgreSQL server, or nowhere (the job cache's share, by difference). */
export type ReturnPathCache = 'sqlite' | { postgres: PostgresOptions } | 'none';

/**
 * A job cache that keeps jobs and answers every new return as stored without storing it: the
 * master's return path with the job cache's own work taken out.
 */
class DiscardingJobCache implements JobCache {
  readonly backend = 'returner' as const;
  private readonly jobs = new Map<string, JobInput>();
  private readonly seen = new Set<string>();
  saveJob(job: JobInput): void {
    this.jobs.set(job.jid, job);
  }
  saveReturn(ret: ReturnInput): boolean {
    const key = `${ret.jid}/${ret.id}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
  saveReturns(rets: readonly ReturnInput[]): boolean[] {
    return rets.map((r) => this.saveReturn(r));
  }
  getJob(jid: string): JobRecord | undefined {
    return this.jobs.get(jid);
  }
  getReturns(): Record<string, never> {
    return {};
  }
  listJobs(): JobRecord[] {
    return [];
  }
  clean(): number {
    return 0;
  }
  close(): void {}
}

export interface ReturnPathResult {
  minions: number;
  jobs: number;
  cache: string;
  /** Median over the jobs of the wall time to handle all of a job's returns, ms. */
  wallPerJobMs: number;
  /** Median over the jobs of the handler's CPU (user + system) per return, µs. */
  cpuPerReturnUs: number;
  /** Each job's figure, µs. */
  perJobUs: number[];
}

/** `minions` returns per job, `jobs` jobs; the job cache is a SQLite file in a temporary root. */
export async function runReturnPathBench(minions = 1000, jobs = 7, cacheKind: ReturnPathCache = 'sqlite'): Promise<ReturnPathResult> {
  const root = mkdtempSync(join(tmpdir(), 'brine-return-path-'));
  const log = createLogging({ level: 'warning', console: false }).getLogger('bench');
  const keys = new KeyStore({ pkiDir: join(root, 'pki') });
  const masterKey = privateKeyFromPem(keys.ensureMasterKeys(2048).privatePem);
  const minionPair = generateKeyPair(2048);
  const tok = makeTok(privateKeyFromPem(minionPair.privatePem));
  const net = new MemoryTransport();
  const events = new MasterEvents(net);
  await events.open(join(root, 'sock'));
  const cache: JobCache =
    cacheKind === 'sqlite'
      ? new SqliteJobCache(join(root, 'jobs.sqlite'))
      : cacheKind === 'none'
        ? new DiscardingJobCache()
        : await PostgresJobCache.open(cacheKind.postgres);
  const dataCache = new MinionDataCache(join(root, 'cache'));
  const sessions = new Sessions();
  const publishKey = new PublishKey(masterKey);
  const ids = Array.from({ length: minions }, (_, i) => `minion-${String(i).padStart(5, '0')}`);
  const rsa = masterRsa(inlineKeyOps(masterKey));
  const auth = new AuthService({
    keys,
    masterKey,
    rsa,
    publishKey,
    sessions,
    events,
    log,
    onAccepted: () => undefined,
    policy: { autoAccept: true, autosign: new SigningFile(undefined), openMode: false, publishPort: 4505 },
  });
  const jobService = new JobService({
    accepted: () => ids,
    dataCache,
    masterKey,
    publishKey,
    publisher: { publish: async () => undefined },
    events,
    log,
    nodegroups: {},
    cache: { jobs: cache, returns: new ReturnBatcher(cache) },
  });
  mkdirSync(join(root, 'files'), { recursive: true });
  const handler = new RequestHandler({
    auth,
    jobs: jobService,
    sessions,
    dataCache,
    events,
    rsa,
    log,
    hooks: { rootKey: () => '', beforePublish: () => undefined },
    pillar: new MasterPillar({ pillar_roots: { base: [join(root, 'pillar')] } }, dataCache, log),
    minionRequests: new MinionRequests({
      files: { file_roots: { base: [join(root, 'files')] } },
      mine: new MineStore(join(root, 'cache')),
      accepted: () => ids,
      grains: (id) => dataCache.grains(id),
      options: {},
    }),
    limits: { maxRequestSize: 64 * 1024 * 1024, replays: new ReplayGuard(300) },
  });
  for (const id of ids) sessions.open(id, minionPair.publicPem).tok = tok.toString('latin1');
  const peer = Buffer.from('peer');
  const perJobUs: number[] = [];
  const wallMs: number[] = [];
  try {
    // Every job's requests are built first, so that what is measured is the master's work alone.
    const batches: Buffer[][] = [];
    for (let j = 0; j <= jobs; j++) {
      const { jid } = await jobService.publish({
        cmd: 'publish',
        tgt: '*',
        tgt_type: 'glob',
        fun: 'test.ping',
        arg: [],
        key: '',
        ret: '',
        jid: '',
        kwargs: {},
        user: 'root',
      });
      batches.push(
        ids.map(
          (id) =>
            buildAesRequest({
              id,
              sessionKey: sessions.get(id)!.crypticle,
              tok,
              load: { cmd: '_return', id, success: true, return: true, retcode: 0, jid: jid!, fun: 'test.ping', fun_args: [] },
            }).bytes,
        ),
      );
    }
    for (const [j, requests] of batches.entries()) {
      const before = process.cpuUsage();
      const started = performance.now();
      await Promise.all(requests.map((bytes) => handler.handle(bytes, peer)));
      const wall = performance.now() - started;
      const used = process.cpuUsage(before);
      // The first job warms the JIT and is not counted.
      if (j > 0) {
        perJobUs.push((used.user + used.system) / minions);
        wallMs.push(wall);
      }
    }
  } finally {
    await events.close();
    await cache.close();
    rmSync(root, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cacheName = typeof cacheKind === 'string' ? cacheKind : 'postgres';
  return { minions, jobs, cache: cacheName, wallPerJobMs: median(wallMs), cpuPerReturnUs: median(perJobUs), perJobUs };
}

/** `node dist/bench/return-path.js [N] [JOBS] [none|sqlite|postgres]...`: one line per job cache. */
async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 1000);
  const jobs = Number(process.argv[3] ?? 7);
  const kinds = process.argv.slice(4).length > 0 ? process.argv.slice(4) : ['none', 'sqlite'];
  let pg: ThrowawayPostgres | undefined;
  try {
    for (const kind of kinds) {
      if (kind === 'postgres') pg ??= await startThrowawayPostgres();
      const r = await runReturnPathBench(n, jobs, kind === 'postgres' ? { postgres: pg!.options } : (kind as 'sqlite' | 'none'));
      console.log(
        `master return path, ${r.minions} returns per job, job cache ${r.cache}: ${r.cpuPerReturnUs.toFixed(1)} µs CPU per return, ` +
          `${r.wallPerJobMs.toFixed(0)} ms per job (medians of ${r.jobs}; µs: ${r.perJobUs.map((u) => u.toFixed(1)).join(' ')})`,
      );
    }
  } finally {
    await pg?.stop();
  }
}

if (require.main === module) void main();
