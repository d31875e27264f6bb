export { loadMasterConfig, loadMinionConfig } from './load';
export type { LoadedConfig, MasterConfig, MinionConfig } from './types';
export { MASTER_OPTIONS, MINION_OPTIONS, type OptionSpec } from './options';
export { LOG_LEVEL_NAMES, type LogLevelName } from './option-types';
export { loadYaml, type YamlValue } from '../pycompat/yaml11-load';
