import { hostname } from 'node:os';
import { Fn, IConfig, IPostgres, Returner, arg, inject } from 'brine/plugin';

/**
 * Salt's pgjsonb tables (salt/returners/pgjsonb.py), created when missing (Salt leaves that to
 * the admin). The advisory lock lets several minions create them at the same moment.
 */
const SCHEMA = `SELECT pg_advisory_xact_lock(hashtext('salt pgjsonb schema'));
CREATE TABLE IF NOT EXISTS jids (
  jid varchar(255) NOT NULL PRIMARY KEY,
  load jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS salt_returns (
  fun varchar(50) NOT NULL,
  jid varchar(255) NOT NULL,
  return jsonb NOT NULL,
  id varchar(255) NOT NULL,
  success varchar(10) NOT NULL,
  full_ret jsonb NOT NULL,
  alter_time timestamp with time zone DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_salt_returns_id ON salt_returns (id);
CREATE INDEX IF NOT EXISTS idx_salt_returns_jid ON salt_returns (jid);
CREATE INDEX IF NOT EXISTS idx_salt_returns_fun ON salt_returns (fun);
CREATE TABLE IF NOT EXISTS salt_events (
  id bigserial NOT NULL PRIMARY KEY,
  tag varchar(255) NOT NULL,
  data jsonb NOT NULL,
  alter_time timestamp with time zone DEFAULT now(),
  master_id varchar(255) NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_salt_events_tag ON salt_events (tag);`;

// Per connection: a returner instance lives for one call, the tables once created stay.
const schemaReady = new WeakMap<IPostgres, Promise<unknown>>();

/** JSON for a jsonb parameter (pg would send a JavaScript array as a PostgreSQL array). */
function json(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

/**
 * Salt's `pgjsonb` returner: returns in `salt_returns`,
 * publications in `jids`, master events in `salt_events`, written with Salt's record shapes
 * through the job cache's PostgreSQL connection ({@link IPostgres}: `returner.postgres.*` /
 * `postgres.*` / `returner.pgjsonb.*` options; on a master with `master_job_cache: postgres`,
 * that cache's own pool).
 */
@Returner('pgjsonb')
export class PgjsonbReturner {
  constructor(
    @inject(IPostgres) private readonly pg: IPostgres,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  private ready(): Promise<unknown> {
    let ready = schemaReady.get(this.pg);
    if (!ready) {
      ready = this.pg.query(SCHEMA).catch((err: unknown) => {
        schemaReady.delete(this.pg);
        throw err;
      });
      schemaReady.set(this.pg, ready);
    }
    return ready;
  }

  @Fn({ summary: 'Store one job return in salt_returns', args: { ret: arg.dict() } })
  async returner({ ret }: { ret: Record<string, unknown> }): Promise<void> {
    await this.ready();
    await this.pg.query(
      'INSERT INTO salt_returns (fun, jid, return, id, success, full_ret, alter_time) VALUES ($1, $2, $3::jsonb, $4, $5, $6::jsonb, now())',
      [
        Array.isArray(ret.fun) ? ret.fun.join(',') : String(ret.fun ?? ''),
        String(ret.jid ?? ''),
        json(ret.return),
        String(ret.id ?? ''),
        // Salt writes Python's bool into the varchar column: 'true' / 'false'.
        ret.success === true ? 'true' : 'false',
        json(ret),
      ],
    );
  }

  @Fn({
    summary: 'Store the publication of a job in jids (once per jid)',
    args: { jid: arg.string(), load: arg.dict(), minions: arg.list({ optional: true }) },
  })
  async save_load({ jid, load }: { jid: string; load: Record<string, unknown> }): Promise<void> {
    await this.ready();
    await this.pg.query('INSERT INTO jids (jid, load) VALUES ($1, $2::jsonb) ON CONFLICT (jid) DO NOTHING', [jid, json(load)]);
  }

  @Fn({ summary: 'The publication of a job, {} when unknown', args: { jid: arg.string() } })
  async get_load({ jid }: { jid: string }): Promise<unknown> {
    await this.ready();
    const rows = await this.pg.query<{ load: unknown }>('SELECT load FROM jids WHERE jid = $1', [jid]);
    return rows.length > 0 ? rows[0].load : {};
  }

  @Fn({ summary: 'The full returns of a job by minion: {minion: ret}', args: { jid: arg.string() } })
  async get_jid({ jid }: { jid: string }): Promise<Record<string, unknown>> {
    await this.ready();
    const rows = await this.pg.query<{ id: string; full_ret: unknown }>('SELECT id, full_ret FROM salt_returns WHERE jid = $1', [jid]);
    return Object.fromEntries(rows.map((r) => [r.id, r.full_ret]));
  }

  @Fn({ summary: 'The minions that have returned', args: {} })
  async get_minions(): Promise<string[]> {
    await this.ready();
    return (await this.pg.query<{ id: string }>('SELECT DISTINCT id FROM salt_returns ORDER BY id')).map((r) => r.id);
  }

  @Fn({ summary: "Store master events ({tag, data}) in salt_events (the master's event_return)", args: { events: arg.list() } })
  async event_return({ events }: { events: unknown[] }): Promise<void> {
    if (events.length === 0) return;
    await this.ready();
    const masterId = String(this.config.get('id', null) ?? `${hostname()}_master`);
    const values: unknown[] = [];
    const rows = events.map((e, i) => {
      const event = (e ?? {}) as Record<string, unknown>;
      values.push(String(event.tag ?? ''), json(event.data ?? ''), masterId);
      return `($${i * 3 + 1}, $${i * 3 + 2}::jsonb, $${i * 3 + 3}, now())`;
    });
    await this.pg.query(`INSERT INTO salt_events (tag, data, master_id, alter_time) VALUES ${rows.join(', ')}`, values);
  }
}
