import { describe, expect, it } from 'vitest';
import { retryInterrupted } from '../../../src/core/transport/zeromq';

/** A socket whose connect fails with `errors` in turn, then succeeds. */
function socketFailing(errors: Array<Error & { code?: string; errno?: number }>) {
  const calls: string[] = [];
  const socket = {
    connect(address: string) {
      calls.push(address);
      const err = errors.shift();
      if (err) throw err;
    },
  };
  return { socket, calls };
}

const eintr = () => Object.assign(new Error('Interrupted system call'), { code: 'EINTR', errno: 4 });

describe('retryInterrupted', () => {
  it('calls again when a signal interrupted the call (EINTR), and only then', () => {
    const { socket, calls } = socketFailing([eintr(), eintr()]);
    retryInterrupted(() => socket.connect('tcp://127.0.0.1:4506'));
    expect(calls).toEqual(['tcp://127.0.0.1:4506', 'tcp://127.0.0.1:4506', 'tcp://127.0.0.1:4506']);
  });

  it('throws any other error at once, and EINTR after 100 tries', () => {
    const invalid = Object.assign(new Error('Invalid argument'), { code: 'EINVAL', errno: 22 });
    const first = socketFailing([invalid]);
    expect(() => retryInterrupted(() => first.socket.connect('tcp://nowhere'))).toThrow('Invalid argument');
    expect(first.calls).toHaveLength(1);
    const always = socketFailing(Array.from({ length: 200 }, eintr));
    expect(() => retryInterrupted(() => always.socket.connect('tcp://127.0.0.1:1'))).toThrow('Interrupted system call');
    expect(always.calls).toHaveLength(100);
  });
});
