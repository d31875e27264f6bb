/** Salt's secure channel as pure functions over frame bytes (no sockets, no state). */
export * from './auth';
export * from './requests';
export * from './private';
export * from './publication';
export * from './message-signature';
export { PICKLE_PREFIX, ENC_ALGO, SIG_ALGO, REQUEST_VERSION, crypticleFor, newNonce, isNonce } from './common';
export type { SymmetricKey } from './common';
