/**
 * A minion's `encryption_algorithm` and `signing_algorithm`: its `_auth` and `_pillar` requests name
 * them, and it opens the replies by them (the fake master answers as Salt's, in what the request
 * names). `sign_pub_messages` on both sides, as Salt 3007 has it: a master with it False publishes without
 * `sig` and `sig_algo` (wrap_payload in salt/channel/server.py); a minion with it True refuses such
 * a publication ("Message signing is enabled but the payload has no signature",
 * _verify_master_signature in salt/channel/client.py), and one with it False runs it. brine's
 * minion asks for the signature unless told not to (Salt's minion does not by default).
 */
import { describe, expect, it } from 'vitest';
import { createLogging } from '../../../src/core/log';
import { MinionChannel } from '../../../src/core/minion/channel-client';
import type { JobLoad } from '../../../src/core/protocol/loads';
import type { MinionSettings } from '../../../src/core/minion/job-loop';
import { freePort } from '../../support/ports';
import { FakeMaster, perTestRoot, web1Pki, web1Settings } from './fake-master';

const { make: makeRoot, cleanups } = perTestRoot('brine-signpub-');

const ping = (jid: string) => ({ fun: 'test.ping', arg: [], tgt: 'web1', tgt_type: 'glob', jid, ret: '', user: 'root' });

/** A fake master (`signPublications`), and a minion channel of web1 subscribed to it with `signPubMessages` and `settings`. */
async function subscribed(signPublications: boolean, signPubMessages: boolean | undefined, more: Partial<MinionSettings> = {}) {
  const root = makeRoot();
  const ports = { retPort: await freePort(), pubPort: await freePort() };
  const master = new FakeMaster({ ...ports, signPublications });
  await master.start();
  cleanups.push(() => master.stop());
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const log = createLogging({
    level: 'info',
    console: true,
    stderr: { write: (l: string) => (lines.push(l), wake(), true) },
  }).getLogger('salt.minion');
  const settings = { ...web1Settings(ports.retPort, web1Pki(root)), sign_pub_messages: signPubMessages, ...more };
  const channel = new MinionChannel(settings, log);
  cleanups.push(() => channel.stop());
  await channel.connect();
  const jobs: JobLoad[] = [];
  await channel.subscribe(async (job) => {
    jobs.push(job);
    wake();
  });
  /**
   * Publishes `job` every 100 ms until `done()` (a PUB drops what it sends before it has read the
   * subscription, and nothing says when that was); each job or log line looks again.
   */
  const publishUntil = async (job: Record<string, unknown>, done: () => boolean) => {
    const timer = setInterval(() => void master.publish(job), 100);
    try {
      await master.publish(job);
      while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
    } finally {
      clearInterval(timer);
    }
  };
  return { jobs, lines, publishUntil, master, channel };
}

describe('sign_pub_messages', () => {
  it("a minion with it False runs an unsigned master's publications", async () => {
    const { jobs, publishUntil } = await subscribed(false, false);
    await publishUntil(ping('20261207000000000001'), () => jobs.length > 0);
    expect(jobs[0]).toMatchObject({ fun: 'test.ping', jid: '20261207000000000001' });
  });

  it("a minion with it True (brine's default) drops them, saying which setting to change", async () => {
    const { jobs, lines, publishUntil } = await subscribed(false, undefined);
    await publishUntil(ping('20261207000000000002'), () => lines.some((l) => l.includes('Dropped')));
    expect(jobs).toEqual([]);
    expect(lines.join('')).toContain(
      'message signing is enabled but the payload has no signature: set sign_pub_messages: True in the master config, or sign_pub_messages: False in this minion config',
    );
  });

  it('a minion with it False still runs a signed publication (the signature is not looked at)', async () => {
    const { jobs, publishUntil } = await subscribed(true, false);
    await publishUntil(ping('20261207000000000003'), () => jobs.length > 0);
    expect(jobs.map((j) => j.jid)).toContain('20261207000000000003');
  });

  it('encryption_algorithm and signing_algorithm SHA-224: the sign-in and a _pillar request name them, and their replies open', async () => {
    const { master, channel, jobs, publishUntil } = await subscribed(true, undefined, {
      encryption_algorithm: 'OAEP-SHA224',
      signing_algorithm: 'PKCS1v15-SHA224',
    });
    expect(await channel.request({ cmd: '_pillar', id: 'web1', grains: {}, saltenv: 'base', pillarenv: null, ver: '2' })).toEqual({});
    await publishUntil(ping('20261207000000000004'), () => jobs.length > 0);
    const sha224 = { enc_algo: 'OAEP-SHA224', sig_algo: 'PKCS1v15-SHA224' };
    expect(master.algorithms).toEqual([
      { cmd: '_auth', ...sha224 },
      { cmd: '_pillar', ...sha224 },
    ]);
  });

  it("Salt's defaults otherwise", async () => {
    const { master, channel } = await subscribed(true, undefined);
    await channel.request({ cmd: '_pillar', id: 'web1', grains: {}, saltenv: 'base', pillarenv: null, ver: '2' });
    const sha1 = { enc_algo: 'OAEP-SHA1', sig_algo: 'PKCS1v15-SHA1' };
    expect(master.algorithms).toEqual([
      { cmd: '_auth', ...sha1 },
      { cmd: '_pillar', ...sha1 },
    ]);
  });
});
