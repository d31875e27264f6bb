export { resolveMinionId, idCachePath, parseIdCache, type MinionIdResult, type IdRule, type ResolveOptions } from './resolve-minion-id';
export { describeIdChoice } from './describe-id-choice';
export type { IdentitySources, IdentityLog } from './identity-sources';
export type { IdentityConfig } from './id-options';
export { createNodeIdentitySources, type NodeIdentitySourcesOptions } from './node-sources';
export { collectCandidates, LOCALHOST_MATCHERS, type Candidate, type CandidateSource, type CandidateReport } from './candidates';
export { GENERIC_HOST_NAMES, sharedIdKind } from './id-warnings';
