import { BrineError, type CoreErrorCode } from '../errors';

/** The codes a {@link MasterError} carries. */
export type MasterErrorCode =
  | 'BAD_PKI_DIR'
  | 'NO_ROOT_KEY'
  | 'BAD_POOL_SIZE'
  | 'NOT_A_WORKER'
  | 'RSA_POOL_CLOSED'
  | 'RSA_JOB_FAILED'
  | 'RSA_WORKER_FAILED'
  // A job the RSA worker ran failed with the crypto or protocol error it names.
  | CoreErrorCode;

/** The master's own failures: key store, root key, the RSA worker pool. */
export class MasterError extends BrineError<MasterErrorCode> {}
