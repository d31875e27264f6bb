import { hostname } from 'node:os';
import { Fn, IConfig, IPostgres, Returner, arg, inject, jidToTime } from 'brine/plugin';

/**
 * Salt's postgres returner tables (salt/returners/postgres.py's docstring), values as JSON text.
 * Salt leaves creating them to the admin; brine creates what is missing, under the same advisory
 * lock as the pgjsonb returner, whose tables have the same names (jsonb instead of text).
 */
const SCHEMA = `SELECT pg_advisory_xact_lock(hashtext('salt pgjsonb schema'));
CREATE TABLE IF NOT EXISTS jids (
  jid varchar(255) NOT NULL PRIMARY KEY,
  load text NOT NULL
);
CREATE TABLE IF NOT EXISTS salt_returns (
  fun varchar(50) NOT NULL,
  jid varchar(255) NOT NULL,
  return text NOT NULL,
  full_ret text,
  id varchar(255) NOT NULL,
  success varchar(10) NOT NULL,
  alter_time timestamp with time zone DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_salt_returns_id ON salt_returns (id);
CREATE INDEX IF NOT EXISTS idx_salt_returns_jid ON salt_returns (jid);
CREATE INDEX IF NOT EXISTS idx_salt_returns_fun ON salt_returns (fun);
CREATE INDEX IF NOT EXISTS idx_salt_returns_updated ON salt_returns (alter_time);
CREATE TABLE IF NOT EXISTS salt_events (
  id bigserial NOT NULL UNIQUE,
  tag varchar(255) NOT NULL,
  data text NOT NULL,
  alter_time timestamp with time zone DEFAULT now(),
  master_id varchar(255) NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_salt_events_tag ON salt_events (tag);`;

const schemaReady = new WeakMap<IPostgres, Promise<unknown>>();

/** Python's json.dumps of a msgpack value, near enough: bigints as numbers. */
function json(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

/**
 * A stored JSON value: text in Salt's layout; already parsed when the tables were made by the
 * pgjsonb returner (jsonb columns), which this returner then shares.
 */
function parsed(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** The publication as `jobs.list_jobs` shows it (Salt's salt.utils.jid.format_jid_instance). */
function jobInstance(jid: string, load: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Function: load.fun ?? 'unknown-function',
    Arguments: Array.isArray(load.arg) ? load.arg : [],
    Target: load.tgt ?? 'unknown-target',
    'Target-type': load.tgt_type ?? 'list',
    User: load.user ?? 'root',
  };
  const kwargs = (load.kwargs ?? {}) as Record<string, unknown>;
  if (load.metadata !== undefined) out.Metadata = load.metadata;
  else if (kwargs.metadata !== undefined) out.Metadata = kwargs.metadata;
  out.StartTime = jidToTime(jid);
  return out;
}

/**
 * Salt's `postgres` returner: returns in `salt_returns`, publications in `jids`, master events in
 * `salt_events`, as JSON text in Salt's table layout, through the job cache's PostgreSQL
 * connection ({@link IPostgres}: the `returner.postgres.*` / `postgres.*` options; on a master
 * whose job cache is PostgreSQL, that cache's own pool).
 */
@Returner('postgres')
export class PostgresReturner {
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
    await this.pg.query('INSERT INTO salt_returns (fun, jid, return, id, success, full_ret) VALUES ($1, $2, $3, $4, $5, $6)', [
      Array.isArray(ret.fun) ? ret.fun.join(',') : String(ret.fun ?? ''),
      String(ret.jid ?? ''),
      json(ret.return),
      String(ret.id ?? ''),
      // psycopg2 writes Python's bool into the varchar column as 'true' / 'false'.
      ret.success === true ? 'true' : 'false',
      json(ret),
    ]);
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
      return `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`;
    });
    await this.pg.query(`INSERT INTO salt_events (tag, data, master_id) VALUES ${rows.join(', ')}`, values);
  }

  @Fn({
    summary: 'Store the publication of a job in jids (the first one stored for a jid stays)',
    args: { jid: arg.string(), load: arg.dict(), minions: arg.list({ optional: true }) },
  })
  async save_load({ jid, load }: { jid: string; load: Record<string, unknown> }): Promise<void> {
    await this.ready();
    await this.pg.query('INSERT INTO jids (jid, load) VALUES ($1, $2) ON CONFLICT (jid) DO NOTHING', [jid, json(load)]);
  }

  @Fn({ summary: 'The publication of a job, {} when unknown', args: { jid: arg.string() } })
  async get_load({ jid }: { jid: string }): Promise<unknown> {
    await this.ready();
    const rows = await this.pg.query<{ load: unknown }>('SELECT load FROM jids WHERE jid = $1', [jid]);
    return rows.length > 0 ? parsed(rows[0].load) : {};
  }

  @Fn({ summary: 'The full returns of a job by minion: {minion: ret}', args: { jid: arg.string() } })
  async get_jid({ jid }: { jid: string }): Promise<Record<string, unknown>> {
    await this.ready();
    const rows = await this.pg.query<{ id: string; full_ret: unknown }>('SELECT id, full_ret FROM salt_returns WHERE jid = $1', [jid]);
    return Object.fromEntries(rows.map((r) => [r.id, parsed(r.full_ret)]));
  }

  @Fn({ summary: "Each minion's last return of a function: {minion: ret}", args: { fun: arg.string() } })
  async get_fun({ fun }: { fun: string }): Promise<Record<string, unknown>> {
    await this.ready();
    // Salt's query (MySQL backquotes) fails on PostgreSQL; this is what it means to ask.
    const rows = await this.pg.query<{ id: string; full_ret: unknown }>(
      'SELECT DISTINCT ON (id) id, full_ret FROM salt_returns WHERE fun = $1 ORDER BY id, jid DESC',
      [fun],
    );
    return Object.fromEntries(rows.map((r) => [r.id, parsed(r.full_ret)]));
  }

  @Fn({ summary: 'Every stored job as jobs.list_jobs shows it: {jid: {Function, Arguments, Target, ...}}', args: {} })
  async get_jids(): Promise<Record<string, unknown>> {
    await this.ready();
    const rows = await this.pg.query<{ jid: string; load: unknown }>('SELECT jid, load FROM jids ORDER BY jid');
    return Object.fromEntries(rows.map((r) => [r.jid, jobInstance(r.jid, (parsed(r.load) ?? {}) as Record<string, unknown>)]));
  }

  @Fn({ summary: 'The minions that have returned', args: {} })
  async get_minions(): Promise<string[]> {
    await this.ready();
    return (await this.pg.query<{ id: string }>('SELECT DISTINCT id FROM salt_returns ORDER BY id')).map((r) => r.id);
  }
}
