import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportError } from '../../../src/core/errors';
import { ProcessPublishServer } from '../../../src/core/transport/publish-process';
import { PublishServer, SubscribeClient } from '../../../src/core/transport/zeromq';
import { freePort } from '../../support/ports';
import { typescriptEntryScript } from '../../../src/core/typescript-entry';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Publishes until the subscriber has one message (a subscription travels after the handshake). */
async function firstMessage(pub: { publish(frames: Buffer[]): Promise<void> }, sub: SubscribeClient, body: string): Promise<string[]> {
  const next = sub.messages()[Symbol.asyncIterator]().next();
  let got: IteratorResult<Buffer[]> | undefined;
  void next.then((r) => (got = r));
  while (!got) {
    await pub.publish([Buffer.from('topic'), Buffer.from(body)]);
    await new Promise((r) => setTimeout(r, 5));
  }
  return got.value.map(String);
}

function subscriber(address: string): SubscribeClient {
  const sub = new SubscribeClient({ reconnectInterval: 20, reconnectMax: 100 });
  closers.push(() => sub.close());
  sub.connect(address);
  return sub;
}

/** Resolves when the process `pid` has gone (polls /proc: there is no exit event for a stranger's child). */
async function gone(pid: number, withinMs = 20_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('ProcessPublishServer: the publish port in a process of its own', () => {
  it('publishes from a child process, and close() frees the port', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const pub = new ProcessPublishServer();
    closers.push(() => pub.close());
    await pub.bind(address);
    expect(pub.pid).toBeGreaterThan(0);
    expect(pub.pid).not.toBe(process.pid);
    // Started with its young generation held small (PUBLISHER_NODE_FLAGS).
    expect(readFileSync(`/proc/${pub.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=1');
    const sub = subscriber(address);
    await sub.whenConnected();
    expect(await firstMessage(pub, sub, 'job')).toEqual(['topic', 'job']);
    const pid = pub.pid!;
    await pub.close();
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    await expect(pub.publish([Buffer.from('late')])).rejects.toMatchObject({ code: 'CLOSED' });
    // The port is free again for whoever comes next.
    const next = new PublishServer();
    closers.push(() => next.close());
    await next.bind(address);
  }, 60_000);

  // The child loads libzmq only for zmq_ports: libzmq (its Node port does without it).
  it.each(['node', 'libzmq'] as const)(
    'serves zmq_ports: %s, with libzmq in the child only for libzmq',
    async (ports) => {
      const address = `tcp://127.0.0.1:${await freePort()}`;
      const pub = new ProcessPublishServer({ ports });
      closers.push(() => pub.close());
      await pub.bind(address);
      const sub = subscriber(address);
      await sub.whenConnected();
      expect(await firstMessage(pub, sub, ports)).toEqual(['topic', ports]);
      const maps = readFileSync(`/proc/${pub.pid}/maps`, 'utf8');
      expect(/zeromq.*addon\.node/.test(maps)).toBe(ports === 'libzmq');
    },
    60_000,
  );

  it('reports a port held by another process as ADDRESS_IN_USE', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const holder = new PublishServer();
    closers.push(() => holder.close());
    await holder.bind(address);
    const pub = new ProcessPublishServer();
    closers.push(() => pub.close());
    await expect(pub.bind(address)).rejects.toMatchObject({ code: 'ADDRESS_IN_USE' });
  }, 60_000);

  it('starts a publish process that was killed again, on the same port', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const errors: TransportError[] = [];
    const pub = new ProcessPublishServer({ startGraceMs: 0, onError: (err) => errors.push(err) });
    closers.push(() => pub.close());
    await pub.bind(address);
    const sub = subscriber(address);
    await sub.whenConnected();
    const back = new Promise<number>((resolve) => sub.onReconnect(resolve));
    const first = pub.pid!;
    process.kill(first, 'SIGKILL');
    await back;
    expect(pub.pid).not.toBe(first);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/publish process \(pid \d+\) ended \(SIGKILL\): starting it again/),
    ]);
    expect(await firstMessage(pub, sub, 'after')).toEqual(['topic', 'after']);
  }, 60_000);

  it('leaves no publish process behind when its parent is killed', async () => {
    const address = `tcp://127.0.0.1:${await freePort()}`;
    // A parent of its own (this test process must survive): it binds, prints the child's pid, waits.
    const script = typescriptEntryScript(join(__dirname, 'fixtures', 'publish-parent.ts'));
    const parent = spawn(process.execPath, ['-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BRINE_TEST_ADDRESS: address },
    });
    closers.push(() => parent.kill('SIGKILL'));
    const childPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
      parent.once('exit', (code) => reject(new Error(`the parent exited first (${code})`)));
    });
    expect(childPid).toBeGreaterThan(0);
    parent.kill('SIGKILL');
    expect(await gone(childPid)).toBe(true);
    // and the port with it
    const next = new PublishServer();
    closers.push(() => next.close());
    await next.bind(address);
  }, 60_000);
});
