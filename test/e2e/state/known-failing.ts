/**
 * Corpus cases (or `case:variant`) that do not pass yet, each with the reason. The list only
 * shrinks: a case that starts passing fails its `it.fails` until it is removed from here.
 * `BRINE_CORPUS_ALL=1 npx vitest run test/e2e/state/corpus.test.ts` runs them as plain tests to
 * show their differences.
 */
export const KNOWN_FAILING: Record<string, string> = {
  '44-shebang-renderers': '#!py renderer (brine refuses Python renderers)',
};
