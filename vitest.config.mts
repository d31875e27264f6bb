import { defineConfig } from 'vitest/config';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      // Plugins import the public API by its package name, as a third party would.
      'brine/plugin': here('./src/plugins/api/index.ts'),
      'brine/testing': here('./src/plugins/testing/index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single worker on a two-core CI
    // machine. Most test time is spent waiting on daemons and child processes, so two files at
    // once keep both cores busy (the suite's time nearly halves) without starving the e2e tests.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
