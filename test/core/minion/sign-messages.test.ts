/**
 * A minion's `minion_sign_messages`: its returns and events carry `sig`, its signature of the load
 * as Salt's master checks it (see channel/message-signature.ts); its other requests (pillar, file
 * server) do not, as Salt's minion signs only what goes through its `_send_req_*`. Off, nothing is
 * signed.
 */
import { describe, expect, it } from 'vitest';
import { createLogging } from '../../../src/core/log';
import { MinionChannel } from '../../../src/core/minion/channel-client';
import { freePort } from '../../support/ports';
import { FakeMaster, perTestRoot, web1Pki, web1Settings } from './fake-master';

const { make: makeRoot, cleanups } = perTestRoot('brine-signmsg-');
const log = createLogging({ level: 'critical', console: false }).getLogger('salt.minion');

/** web1's channel to a fake master, signed in, with minion_sign_messages as given. */
async function connected(sign: boolean | undefined) {
  const ports = { retPort: await freePort(), pubPort: await freePort() };
  const master = new FakeMaster(ports);
  await master.start();
  cleanups.push(() => master.stop());
  const channel = new MinionChannel({ ...web1Settings(ports.retPort, web1Pki(makeRoot())), minion_sign_messages: sign }, log);
  cleanups.push(() => channel.stop());
  await channel.connect();
  return { master, channel };
}

const RETURN = { cmd: '_return', jid: '20261207000000000001', fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true };

describe('minion_sign_messages', () => {
  it('signs returns and events with the minion key, and nothing else', async () => {
    const { master, channel } = await connected(true);
    await channel.request(RETURN);
    await channel.request({ cmd: '_minion_event', tag: 'my/tag', data: { ratio: 1.5 }, pretag: null });
    await channel.request({ cmd: '_file_envs' });
    expect(master.signatures.filter((s) => s.cmd !== '_pillar')).toEqual([
      { cmd: '_return', verified: true },
      { cmd: '_minion_event', verified: true },
      { cmd: '_file_envs', verified: null },
    ]);
  });

  it("signs nothing when off (Salt's default)", async () => {
    const { master, channel } = await connected(undefined);
    await channel.request(RETURN);
    expect(master.signatures).toEqual([{ cmd: '_return', verified: null }]);
  });
});
