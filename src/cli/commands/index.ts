/**
 * oclif's explicit command list: no directory scan at start-up. Each command loads what it needs
 * only when it runs, so `salt-key -L` does not pay for ZeroMQ or the plugin loader.
 */
import Salt from './salt';
import SaltApi from './salt-api';
import SaltCall from './salt-call';
import SaltCp from './salt-cp';
import SaltKey from './salt-key';
import SaltMaster from './salt-master';
import SaltMinion from './salt-minion';
import SaltRun from './salt-run';

export const COMMANDS = {
  salt: Salt,
  'salt-api': SaltApi,
  'salt-call': SaltCall,
  'salt-cp': SaltCp,
  'salt-key': SaltKey,
  'salt-master': SaltMaster,
  'salt-minion': SaltMinion,
  'salt-run': SaltRun,
};
