/**
 * The built-in plugins loaded once, with the real Executor, shared by every simulated minion of
 * one simulator process (bench/sim-worker.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { loadMinionConfig } from '../src/core/config';
import { createLogging } from '../src/core/log';
import { executorFor, startPlugins } from '../src/cli/minion-runtime';
import type { JobExecutor, MinionGrains } from '../src/core/minion/job-loop';

/** What every simulated minion shares: the executor and grains of one plugin load. */
export interface SharedMinionRuntime {
  executor: JobExecutor;
  grains: MinionGrains;
}

export async function sharedRuntime(): Promise<SharedMinionRuntime & { loadMs: number; cleanup: () => void }> {
  const started = performance.now();
  const root = mkdtempSync(join(os.tmpdir(), 'brine-bench-plugins-'));
  const { config } = loadMinionConfig(root, { id: 'bench-executor', root_dir: root });
  const logging = createLogging({ level: 'warning', console: true });
  const runtime = await startPlugins(config, logging);
  return {
    executor: executorFor(runtime),
    grains: { all: () => runtime.grains() },
    loadMs: performance.now() - started,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
