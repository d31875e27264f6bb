import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The slow files first: the interoperability suite (real Salt daemons), then the end-to-end runs
 * of the binaries, then the rest. Without a results cache (a clean CI clone) vitest orders by file
 * size, which started the state corpus, a short file of 200 runs, last and alone; with the long
 * files first the two workers finish together. Within each group vitest's own order stays.
 */
class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const group = (f: TestSpecification) => (f.moduleId.includes('/test/interop/') ? 0 : f.moduleId.includes('/test/e2e/') ? 1 : 2);
    return [...(await super.sort(files))].sort((a, b) => group(a) - group(b));
  }
}

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
    setupFiles: ['./test/support/reap-daemons.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single worker on a two-core CI
    // machine. Most test time is spent waiting on daemons and child processes, so two files at
    // once keep both cores busy (the suite's time nearly halves) without starving the e2e tests.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SlowFilesFirst },
  },
});
