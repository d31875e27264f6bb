import { resolve } from 'node:path';

/** Fixture directory of the plugin tests. */
export const FIXTURES = resolve(__dirname, 'fixtures');
export const fixture = (...parts: string[]): string => resolve(FIXTURES, ...parts);
