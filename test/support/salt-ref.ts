/**
 * The reference Salt 3007.10 for the interoperability suite (scripts/salt-ref.ts holds the
 * daemons and CLIs, shared with the benchmarks): whether a suite runs.
 */
import { describe, it } from 'vitest';
import { SALT_REF, SALT_REF_INSTALL, saltRefInstalled } from '../../scripts/salt-ref';

export * from '../../scripts/salt-ref';

/**
 * `describe` for a suite that needs the reference Salt. Without it: skipped locally (saying how to
 * install it), and a failing test under CI=true, where it must never be skipped.
 */
export function describeWithSalt(name: string, body: () => void): void {
  if (saltRefInstalled()) {
    // Salt's CLIs take a second or two each to start in Python: room for a few per test on busy cores.
    describe(name, { timeout: 90_000 }, body);
    return;
  }
  const how = `the reference Salt 3007.10 is not installed in ${SALT_REF}: run ${SALT_REF_INSTALL} (or set BRINE_SALT_REF)`;
  if (process.env.CI === 'true') {
    describe(name, () =>
      it('needs the reference Salt', () => {
        throw new Error(how);
      }),
    );
    return;
  }
  process.stderr.write(`interop suite "${name}" skipped: ${how}\n`);
  describe.skip(name, body);
}

/** A CLI's `--out json` output, parsed; an error that quotes what it printed instead. */
export function json(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON: ${text}`);
  }
}
