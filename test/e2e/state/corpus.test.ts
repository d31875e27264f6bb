/**
 * The state-system corpus (`../shared/salt-states/`, from a real Salt 3007.10), byte for byte
 * after normalising the fields its README names, through the real `salt-call --local` binary.
 * Each variant (`out.X` and its idempotence run `out2.X`) runs in its own fresh tree.
 *
 * Cases and variants that do not pass yet are listed in KNOWN_FAILING with the reason; they run
 * as `it.fails`, so a fix that makes one pass fails the suite until it is taken off the list,
 * and a regression of a passing case fails it too.
 */
import { describe, expect, it } from 'vitest';
import { caseNames, loadCase, runVariant } from '../../support/state-corpus';
import { KNOWN_FAILING } from './known-failing';

function knownFailure(caseName: string, variant: string): string | undefined {
  return KNOWN_FAILING[`${caseName}:${variant}`] ?? KNOWN_FAILING[caseName];
}

describe('salt-states corpus through salt-call --local', () => {
  for (const name of caseNames()) {
    if (name.startsWith('90-')) continue; // the master flow: test/e2e/state/master-apply.test.ts
    const spec = loadCase(name);
    for (const variant of spec.variants) {
      const reason = knownFailure(name, variant.name);
      // BRINE_CORPUS_ALL=1 runs the known failures as plain tests, to see their differences.
      const test = reason && !process.env.BRINE_CORPUS_ALL ? it.concurrent.fails : it.concurrent;
      test(`${name} ${variant.name}${reason ? ` (known failing: ${reason})` : ''}`, { timeout: 120_000 }, async () => {
        const { results, workAfter } = await runVariant(spec, variant);
        for (const r of results) {
          expect(r.actual, `${name}/${r.file}\nstderr: ${r.stderr}`).toBe(r.expected);
          if (r.expectedCode !== undefined) expect(r.code, `${name}/${r.file} exit code`).toBe(r.expectedCode);
        }
        if (workAfter) expect(workAfter.actual, `${name}/work-after.txt`).toBe(workAfter.expected);
      });
    }
  }
});
