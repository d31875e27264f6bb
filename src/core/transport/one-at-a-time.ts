/**
 * Runs calls one after another, each once the one before has settled: a REQ socket has one request
 * in flight, and every request client (libzmq's, the ZMTP one, the in-memory one) queues the rest.
 */
export class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(call: () => Promise<T>): Promise<T> {
    const run = this.tail.then(call);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
