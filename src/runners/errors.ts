import { BrineError } from '../core/errors';

/** A salt-run argument a runner cannot use; the hint says what it takes. */
export class RunnerArgError extends BrineError<'BAD_RUNNER_ARG'> {}
