export { CacheRunner } from './cache.runner';
