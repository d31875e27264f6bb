/**
 * A throwaway PostgreSQL server per test file. In CI a server that cannot start FAILS the tests;
 * locally BRINE_SKIP_PG=1 skips them (CI=true overrides it).
 */
import { Client } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../../../bench/pg-sandbox';
import type { PostgresOptions } from '../../../../../src/core/master/job-cache';

export const SKIP_PG = process.env.BRINE_SKIP_PG === '1' && !process.env.CI;

/** Starts the server in beforeAll (when not skipped) and stops it in afterAll. */
export function usePostgres(): { options: () => PostgresOptions } {
  let server: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    if (SKIP_PG) return;
    server = await startThrowawayPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  return {
    options: () => {
      if (!server) throw new Error('the throwaway PostgreSQL server did not start');
      return server.options;
    },
  };
}

/** Empties brine's tables, so each test starts from nothing on the shared server. */
export async function truncateTables(options: PostgresOptions): Promise<void> {
  const client = new Client(options);
  await client.connect();
  try {
    await client.query('TRUNCATE brine_jobs, brine_returns');
  } finally {
    await client.end();
  }
}
