/**
 * Corpus cases (or `case:variant`) that do not pass yet, each with the reason. The list only
 * shrinks: a case that starts passing fails its `it.fails` until it is removed from here.
 */
export const KNOWN_FAILING: Record<string, string> = {};
