import { describe, expect, it } from 'vitest';
import { createLogging } from '../../../src/core/log';
import { MinionChannel, type ChannelSettings } from '../../../src/core/minion/channel-client';
import { codeOf } from '../../support/errors';

const settings = (id: string): ChannelSettings => ({
  id,
  master: '127.0.0.1',
  master_port: 1,
  pki_dir: '/nonexistent',
  keysize: 1024,
  acceptance_wait_time: 1,
  auth_timeout: 1,
  recon_default: 1000,
  recon_max: 1000,
});
const log = createLogging({ level: 'quiet', console: false }).getLogger('salt.minion');
const make = (id: string) => () => new MinionChannel(settings(id), log);

describe("the minion's own id", () => {
  it.each(['.root_key', 'web1 ', 'web\u202e1', 'web\u22151', 'x'.repeat(256), 'a/b'])('refuses %j as the master would', (id) => {
    expect(codeOf(make(id))).toBe('BAD_ID');
  });

  it('takes an ordinary id', () => {
    expect(make('web1.example.com')().id).toBe('web1.example.com');
  });
});
