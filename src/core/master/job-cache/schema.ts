/**
 * One schema for both backends. Values (tgt, fun, arg, minions, metadata, fun_args, ret) are JSON text from
 * value-codec.ts; times are milliseconds since the epoch (UTC), so both databases compare them
 * the same way. `seq` keeps the arrival order of returns (SQLite's rowid plays that part there).
 *
 * The tables are prefixed `brine_` so that they never collide with Salt's own postgres returner
 * tables (`jids`, `salt_returns`) in a database both use.
 */

export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS brine_jobs (
  jid        TEXT PRIMARY KEY,
  tgt        TEXT NOT NULL,
  tgt_type   TEXT NOT NULL,
  fun        TEXT NOT NULL,
  arg        TEXT NOT NULL,
  user       TEXT NOT NULL,
  minions    TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  metadata   TEXT
);
CREATE INDEX IF NOT EXISTS brine_jobs_started ON brine_jobs (started_ms);
CREATE TABLE IF NOT EXISTS brine_returns (
  jid      TEXT NOT NULL,
  id       TEXT NOT NULL,
  fun      TEXT NOT NULL,
  fun_args TEXT NOT NULL,
  ret      TEXT NOT NULL,
  retcode  INTEGER NOT NULL,
  success  INTEGER NOT NULL,
  out      TEXT,
  at_ms    INTEGER NOT NULL,
  PRIMARY KEY (jid, id)
);
CREATE INDEX IF NOT EXISTS brine_returns_at ON brine_returns (at_ms);
`;

/**
 * Columns added after the first release, for SQLite files made before them (SQLite has no
 * ADD COLUMN IF NOT EXISTS; PostgreSQL's schema above migrates itself).
 */
export const SQLITE_ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; type: string }> = [
  // `salt --metadata`: the publication's metadata dict, JSON text (value-codec), NULL when none.
  { table: 'brine_jobs', column: 'metadata', type: 'TEXT' },
];

export const POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS brine_jobs (
  jid        TEXT PRIMARY KEY,
  tgt        TEXT NOT NULL,
  tgt_type   TEXT NOT NULL,
  fun        TEXT NOT NULL,
  arg        TEXT NOT NULL,
  "user"     TEXT NOT NULL,
  minions    TEXT NOT NULL,
  started_ms BIGINT NOT NULL,
  metadata   TEXT
);
-- Caches made before metadata was kept (salt --metadata) get the column.
ALTER TABLE brine_jobs ADD COLUMN IF NOT EXISTS metadata TEXT;
CREATE INDEX IF NOT EXISTS brine_jobs_started ON brine_jobs (started_ms);
CREATE TABLE IF NOT EXISTS brine_returns (
  seq      BIGSERIAL,
  jid      TEXT NOT NULL,
  id       TEXT NOT NULL,
  fun      TEXT NOT NULL,
  fun_args TEXT NOT NULL,
  ret      TEXT NOT NULL,
  retcode  BIGINT NOT NULL,
  success  BOOLEAN NOT NULL,
  out      TEXT,
  at_ms    BIGINT NOT NULL,
  PRIMARY KEY (jid, id)
);
CREATE INDEX IF NOT EXISTS brine_returns_at ON brine_returns (at_ms);
`;

/**
 * Masters sharing one PostgreSQL database may create the schema at the same moment; concurrent
 * CREATE TABLE IF NOT EXISTS can still collide in pg_type, so creation holds this advisory lock.
 */
export const POSTGRES_SCHEMA_LOCK = 0x6272696e65; // "brine"
