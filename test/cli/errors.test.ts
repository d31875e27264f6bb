import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/errors';
import { ProtocolError, TransportError } from '../../src/core/errors';

describe('CliError', () => {
  it('keeps the code of the error it wraps, so callers test codes, not text', () => {
    const cause = new TransportError('TIMEOUT', 'no reply from tcp://127.0.0.1:4506 within 5000 ms');
    expect(new CliError('the master did not answer', 2, { cause }).code).toBe('TIMEOUT');
    expect(new CliError('bad flag', 64).code).toBe('CLI');
    expect(new CliError('x', 1, { code: 'NO_MINIONS', cause: new ProtocolError('BAD_LOAD', 'y') }).code).toBe('NO_MINIONS');
    expect(new CliError('x', 1, { cause: new Error('plain') }).code).toBe('CLI');
  });
});
