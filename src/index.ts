/**
 * The package root, `require('brine')`: the plugin API (the same as `brine/plugin`) and the client
 * that programs (a future salt-api, scripts) use to reach a master on this host.
 *
 * @example
 * const { LocalClient, loadMasterConfig } = require('brine');
 * const { config } = loadMasterConfig('/etc/salt');
 * const client = await LocalClient.connect(config);
 * const pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
 * for await (const ret of client.returns(pub, 5000)) console.log(ret.id, ret.return);
 * client.close();
 */
export * from './plugins/api';
export {
  LocalClient,
  type MasterAddress,
  type MinionReturn,
  type Publication,
  type PublishRequest,
  type WaitOptions,
} from './core/client/local-client';
export { JobWaiter } from './core/client/local-client-wait';
export { listenToMaster } from './core/client/event-listener';
export { loadMasterConfig, type MasterConfig } from './core/config';
