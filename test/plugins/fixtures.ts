import { resolve } from 'node:path';

/** Fixture directory of the plugin tests. */
export const FIXTURES = resolve(__dirname, 'fixtures');
export const fixture = (...parts: string[]): string => resolve(FIXTURES, ...parts);

import { BUILTIN_PLUGINS } from '../../plugins';
import { readModule } from '../../src/plugins/api/metadata';

/**
 * The built-in execution modules available with these grains, sorted (what a loader lists), so
 * tests of module listings do not change each time a built-in module is added. `without` leaves
 * out modules a test's loader cannot load (saltutil needs a minion).
 */
export function builtinModules(grains: Record<string, unknown> = {}, without: string[] = []): string[] {
  return BUILTIN_PLUGINS.map((p) => readModule(p))
    .filter((m): m is NonNullable<typeof m> => m !== undefined && m.kind === 'execution')
    .filter((m) => !without.includes(m.name) && (m.available === undefined || m.available(grains) === true))
    .map((m) => m.name)
    .sort();
}

/** Every built-in execution module's name, available or not. */
export function allBuiltinModules(): string[] {
  return BUILTIN_PLUGINS.map((p) => readModule(p))
    .filter((m): m is NonNullable<typeof m> => m !== undefined && m.kind === 'execution')
    .map((m) => m.name)
    .sort();
}
