import { BrineError, type CoreErrorCode } from '../errors';

/** The codes a {@link MasterError} carries. */
export type MasterErrorCode =
  | 'BAD_PKI_DIR'
  | 'NO_ROOT_KEY'
  // A failure of the crypto or protocol code the master runs, as that code names it.
  | CoreErrorCode;

/** The master's own failures: key store, root key. */
export class MasterError extends BrineError<MasterErrorCode> {}
