import { BrineError, type CoreErrorCode } from '../core/errors';
import type { RenderErrorCode } from '../core/render/errors';
import type { MinionErrorCode } from '../core/minion/minion-errors';
import type { PluginErrorCode } from '../plugins/api/errors';
import type { ClientErrorCode } from '../core/client/client-errors';

/** A CliError's code: its own (`CLI`), or that of the error it wraps. */
export type CliErrorCode = 'CLI' | CoreErrorCode | ClientErrorCode | RenderErrorCode | MinionErrorCode | PluginErrorCode | 'BAD_SHLEX';

/** Salt's exit code for a command-line usage error (EX_USAGE). */
export const EXIT_USAGE = 64;

/**
 * A user mistake or an unusable situation: one line on stderr and an exit code, never a stack. Its
 * `code` is the one given, else that of the BrineError it wraps (`cause`), else 'CLI': a test (or
 * a caller) can tell a refused key from an unreachable master without reading the text.
 */
export class CliError extends BrineError<CliErrorCode> {
  constructor(
    message: string,
    readonly exitCode = 1,
    options: { hint?: string; cause?: unknown; code?: CliErrorCode } = {},
  ) {
    super(
      options.code ?? (options.cause instanceof BrineError ? (options.cause as BrineError<CliErrorCode>).code : 'CLI'),
      message,
      options,
    );
  }
}

/** Prints an error the way Salt's commands do and exits; stack traces only for real bugs. */
export function reportAndExit(err: unknown): never {
  const oclifExit = (err as { oclif?: { exit?: number } })?.oclif?.exit;
  // oclif's errors carry an `oclif` field: only then is oclif loaded here (the commands main runs
  // without oclif never load it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Errors =
    (err as { oclif?: unknown })?.oclif !== undefined ? (require('@oclif/core/errors') as typeof import('@oclif/core/errors')) : undefined;
  // oclif's exit: its ExitError, or (from another copy of @oclif/core) an error with its EEXIT code.
  if (
    (Errors && err instanceof Errors.ExitError) ||
    (oclifExit !== undefined && !(err instanceof BrineError) && (err as { code?: unknown }).code === 'EEXIT')
  ) {
    process.exit(oclifExit ?? 0);
  }
  if (err instanceof BrineError) {
    process.stderr.write(`ERROR: ${err.message}\n`);
    if (err.hint) process.stderr.write(`${err.hint}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
  if (Errors && err instanceof Errors.CLIError) {
    // oclif's own parse errors: unknown flag, missing argument.
    // oclif ends some messages with its own "See more help" line: one pointer to --help is enough.
    const lines = err.message
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('See more help'))
      .slice(0, 6);
    process.stderr.write(`ERROR: ${lines.join('\n')}\n`);
    process.stderr.write('See --help for usage.\n');
    process.exit(EXIT_USAGE);
  }
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
}
