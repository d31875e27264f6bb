/**
 * salt-master bounds V8's heap growth for its own process (src/cli/salt-master.ts): a real master
 * started from bin/salt-master, with a preloaded hook that records the V8 flags the process sets.
 * What the bound does to the master's memory is measured by `npm run bench` (docs/scaling.md).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MASTER_HEAP_GROWING_PERCENT } from '../../src/cli/salt-master';
import { Cluster } from '../support/cluster';

const root = mkdtempSync(join(tmpdir(), 'brine-master-heap-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the master process', () => {
  it('sets V8 heap growing percent before it serves', async () => {
    const flagsFile = join(root, 'flags.txt');
    const hook = join(root, 'hook.js');
    writeFileSync(
      hook,
      `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => { require('node:fs').appendFileSync(${JSON.stringify(flagsFile)}, flags + '\\n'); return set(flags); };
`,
    );
    writeFileSync(flagsFile, '');
    const cluster = await Cluster.create();
    try {
      await cluster.startMaster({ nodeArgs: ['--require', hook] });
      expect(MASTER_HEAP_GROWING_PERCENT).toBeGreaterThan(0);
      expect(readFileSync(flagsFile, 'utf8').split('\n')).toContain(`--heap-growing-percent=${MASTER_HEAP_GROWING_PERCENT}`);
    } finally {
      await cluster.stop();
    }
  });
});
