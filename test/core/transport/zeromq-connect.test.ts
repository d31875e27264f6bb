import { describe, expect, it } from 'vitest';
import type * as zmq from 'zeromq';
import { connectRetrying } from '../../../src/core/transport/zeromq';

/** A socket whose connect fails with `errors` in turn, then succeeds. */
function socketFailing(errors: Array<Error & { code?: string; errno?: number }>) {
  const calls: string[] = [];
  const socket = {
    connect(address: string) {
      calls.push(address);
      const err = errors.shift();
      if (err) throw err;
    },
  } as unknown as zmq.Socket;
  return { socket, calls };
}

const eintr = () => Object.assign(new Error('Interrupted system call'), { code: 'EINTR', errno: 4 });

describe('connectRetrying', () => {
  it('calls connect again when a signal interrupted it (EINTR), and only then', () => {
    const { socket, calls } = socketFailing([eintr(), eintr()]);
    connectRetrying(socket, 'tcp://127.0.0.1:4506');
    expect(calls).toEqual(['tcp://127.0.0.1:4506', 'tcp://127.0.0.1:4506', 'tcp://127.0.0.1:4506']);
  });

  it('throws any other error at once, and EINTR after 100 tries', () => {
    const invalid = Object.assign(new Error('Invalid argument'), { code: 'EINVAL', errno: 22 });
    const first = socketFailing([invalid]);
    expect(() => connectRetrying(first.socket, 'tcp://nowhere')).toThrow('Invalid argument');
    expect(first.calls).toHaveLength(1);
    const always = socketFailing(Array.from({ length: 200 }, eintr));
    expect(() => connectRetrying(always.socket, 'tcp://127.0.0.1:1')).toThrow('Interrupted system call');
    expect(always.calls).toHaveLength(100);
  });
});
