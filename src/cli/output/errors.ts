import { BrineError } from '../../core/errors';

/** An outputter asked for that does not exist, or options it cannot use. */
export class OutputError extends BrineError<'BAD_OUTPUTTER' | 'BAD_OUTPUT_INDENT'> {}
