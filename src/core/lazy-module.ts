/**
 * Loads one of brine's modules on first use, without Node's ES module loader: the compiled tree
 * is CommonJS, and an `import()` there starts that loader (its module jobs and its parse of each
 * imported file's exports), about 10 ms of a short command for nothing `require` would not do.
 * From the TypeScript sources (vitest), where `require` finds no `.js` file, the caller's own
 * `import()` loads it.
 *
 * @example
 * const { StateSystem } = await lazyModule(
 *   () => require('../../core/state/state-system.js') as typeof import('../../core/state/state-system.js'),
 *   () => import('../../core/state/state-system.js'),
 * );
 */
export async function lazyModule<T>(requireIt: () => T, importIt: () => Promise<T>): Promise<T> {
  try {
    return requireIt();
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND' || __filename.endsWith('.js')) throw err;
    return importIt();
  }
}
