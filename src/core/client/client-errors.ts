import { BrineError } from '../errors';

/** The codes a {@link ClientError} carries. */
export type ClientErrorCode = 'NO_MINIONS' | 'PUBLISH_REFUSED' | 'BAD_REPLY' | 'MASTER_UNREACHABLE' | 'BAD_WAIT_OPTION' | 'BAD_BATCH';

/** What a client (the CLI, salt-api) meets reaching a master: no minion matched, a refused job, no answer. */
export class ClientError extends BrineError<ClientErrorCode> {}
