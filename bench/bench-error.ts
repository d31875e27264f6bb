import { BrineError } from '../src/core/errors';

/** The codes a {@link BenchError} carries. */
export type BenchErrorCode =
  | 'BAD_BENCH_FLAG'
  | 'BENCH_BASELINE'
  | 'BENCH_CHILD'
  | 'BENCH_SOAK'
  | 'BENCH_KEY_MISSING'
  | 'BENCH_MASTER'
  | 'BENCH_PROCESS'
  | 'BENCH_PROCFS'
  | 'BENCH_REAL'
  | 'BENCH_SALT_KEY'
  | 'PG_SANDBOX'
  | 'BENCH_FLEET';

/** A benchmark that cannot run: a bad flag, a missing key or baseline, a child or /proc failure. */
export class BenchError extends BrineError<BenchErrorCode> {}
