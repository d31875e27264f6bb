/**
 * The master's maintenance, on a master in process over the in-memory transport. When it replaces
 * its publish key (Salt's AES key): every publish_session seconds (Salt's
 * Maintenance.handle_key_rotate), and when a key stops being accepted unless rotate_aes_key is
 * False; each rotation fires Salt's `key` event, and with ping_on_rotate publishes a test.ping so
 * the minions sign in again at once. presence_events (handle_presence): test/core/master/presence.test.ts
 * for what is connected, here that the events come each loop_interval.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMasterConfig } from '../../../src/core/config';
import { generateKeyPair } from '../../../src/core/crypto/rsa';
import { createLogging } from '../../../src/core/log';
import { Master } from '../../../src/core/master/master';
import { MemoryTransport } from '../../../src/core/transport/memory';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A started master with `config`, keys accepted for `accepted`; its log and a way to wait for events. */
async function master(config: Record<string, unknown>, accepted: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), 'brine-rotation-'));
  const etc = join(root, 'etc');
  mkdirSync(join(root, 'etc', 'pki', 'master', 'minions'), { recursive: true, mode: 0o700 });
  chmodSync(join(root, 'etc', 'pki', 'master'), 0o700);
  for (const id of accepted) writeFileSync(join(root, 'etc', 'pki', 'master', 'minions', id), generateKeyPair(1024).publicPem);
  writeFileSync(
    join(etc, 'master'),
    stringify({ root_dir: root, pki_dir: join(etc, 'pki', 'master'), interface: '127.0.0.1', keysize: 1024, ...config }),
  );
  const lines: string[] = [];
  const logging = createLogging({ level: 'debug', console: true, stderr: { write: (l: string) => (lines.push(l), true) } });
  const m = new Master(loadMasterConfig(etc).config, logging.getLogger('salt.master'), { transport: new MemoryTransport() });
  await m.start();
  stops.push(async () => {
    await m.stop();
    rmSync(root, { recursive: true, force: true });
  });
  /** Resolves with the data of the first event from now whose tag matches. */
  const nextEvent = (tag: RegExp) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const off = m.onEvent((t, data) => {
        if (!tag.test(t)) return;
        off();
        resolve(data);
      });
    });
  return { master: m, lines, nextEvent };
}

describe('publish key rotation', () => {
  it('replaces the publish key every publish_session seconds, firing Salt\'s "key" event', async () => {
    const { lines, nextEvent } = await master({ publish_session: 1, loop_interval: 0.05 });
    expect(await nextEvent(/^key$/)).toMatchObject({ rotate_aes_key: true });
    expect(lines.join('')).toContain('Rotating AES key: its publish_session is over');
  });

  it('rotates when a key stops being accepted, and with ping_on_rotate pings the others', async () => {
    const { master: m, lines, nextEvent } = await master({ ping_on_rotate: true }, ['web1', 'web2']);
    const rotated = nextEvent(/^key$/);
    const pinged = nextEvent(/^salt\/job\/\d{20}\/new$/);
    m.keys.delete(['web2']);
    expect(await rotated).toMatchObject({ rotate_aes_key: true });
    expect(await pinged).toMatchObject({ fun: 'test.ping', tgt: '*', minions: ['web1'] });
    expect(lines.join('')).toContain('Rotating AES key: the key of web2 is no longer accepted');
  });

  it('keeps the publish key when rotate_aes_key is False, saying what that leaves open', async () => {
    const { master: m, lines, nextEvent } = await master({ rotate_aes_key: false }, ['web1', 'web2']);
    // Every tag, as it is fired: a rotation would fire `key` in the same turn as the removal's salt/key.
    const tags: string[] = [];
    m.onEvent((tag) => void tags.push(tag));
    const removed = nextEvent(/^salt\/key$/);
    m.keys.delete(['web2']);
    await removed;
    expect(lines.join('')).toContain(
      'rotate_aes_key is False: the publish key is kept, so web2 can still read publications until it is replaced (publish_session, or a master restart)',
    );
    expect(tags).toContain('salt/key');
    expect(tags).not.toContain('key');
    expect(lines.join('')).not.toContain('Rotating AES key');
  });
});

describe('presence_events', () => {
  it('fires salt/presence/present each loop_interval', async () => {
    const { nextEvent } = await master({ presence_events: true, loop_interval: 0.05 }, ['web1']);
    // No minion holds a connection to this master's publish port (the in-memory transport has none).
    expect(await nextEvent(/^salt\/presence\/present$/)).toMatchObject({ present: [] });
  });
});
