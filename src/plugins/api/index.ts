/**
 * The public plugin-author API, imported as `brine/plugin`. Everything a module needs comes from
 * here. Service ids and metadata keys live in the global symbol registry, so a plugin that
 * brings its own copy of brine still talks to the host's loader.
 *
 * @example
 * import { Module, Fn, arg, inject, IShell, CommandExecutionError } from 'brine/plugin';
 *
 * @Module('hello')
 * export class Hello {
 *   constructor(@inject(IShell) private readonly shell: IShell) {}
 *
 *   @Fn({ summary: 'Say hello', examples: ["salt '*' hello.world bob"], args: { name: arg.string({ default: 'world' }) } })
 *   async world({ name }: { name: string }): Promise<string> {
 *     const res = await this.shell.run(['echo', 'hello', name]);
 *     if (res.retcode !== 0) throw new CommandExecutionError('echo failed');
 *     return res.stdout.trim();
 *   }
 * }
 */
export { inject, serviceId, type InjectOptions } from './inject';
export { Module, Fn, GrainsProvider, type ModuleOptions, type FnOptions, type CallArgs, type TypedMethodDecorator } from './decorators';
export {
  StateModule,
  State,
  Runner,
  Wheel,
  Returner,
  Renderer,
  Render,
  ExtPillar,
  Pillar,
  type StateOptions,
  type StateReturn,
  type StateContext,
  type RendererContext,
  type PillarContext,
  type ContractDecorator,
} from './kinds';
export type { PluginKind } from './metadata';
export { arg, type ArgDef, type ArgSchema, type ArgsOf, type ArgType } from './args';
export type { FnDocs } from './metadata';
export {
  IShell,
  IGrains,
  IConfig,
  ILogger,
  IJobContext,
  ISalt,
  IPillar,
  type PillarCompileOptions,
  type ShellRunOptions,
  type ShellResult,
} from './services';
export { IHost, type HostAddress } from './host';
export { IMaster, type MinionCall, type MinionAnswer, type PillarFor } from './master';
export { IMasterLink, type MasterFileHash } from './master-link';
export { IMinionEvents, type MinionEvent } from './minion-events';
export { IJobCache, IPostgres, type JobReturn, type JobLoad, type CachedReturn } from './returner-services';
export {
  IModules,
  IMinionControl,
  type ArgSpec,
  type ModuleProblem,
  type RunningJob,
  type ExtensionForm,
  type SyncOptions,
} from './control';
// Python's and Salt's semantics, so a module behaves as Salt's does without writing its own copy.
export {
  fnmatch,
  traverse,
  isTrue,
  pyTruthy,
  pyRepr,
  isDict,
  pyStr,
  pyTupleRepr,
  pyTypeName,
  pyEqual,
  dictUpdate,
  shlexSplit,
  ShlexError,
  compilePythonSearch,
  checkIncludeExclude,
  formatYaml,
  formatNested,
  localZoneAt,
  pyStrftime,
  loadYaml,
  pyJsonDumps,
  compareIp,
  formatIp,
  formatNetwork,
  inNetwork,
  isLoopback,
  isPrivate,
  parseIp,
  parseNetwork,
  prefixToNetmask,
  type IpAddress,
  type IpNetwork,
} from '../../core/pycompat';
export { httpGet, httpDownload, httpExists, extrnPath, redactUrl } from './http-fetch';
export {
  CommandExecutionError,
  InvocationError,
  ArgumentError,
  ModuleUnavailableError,
  FunctionNotFoundError,
  PluginDefinitionError,
} from './errors';
export {
  passwdEntries,
  groupEntries,
  shadowEntries,
  userByName,
  userById,
  groupByName,
  groupById,
  type PasswdEntry,
  type GroupEntry,
  type ShadowEntry,
} from './accounts';
export { BRINE_VERSION, SALT_VERSION, SALT_VERSION_INFO, versionsReport, zmqVersion } from './version';
export { IStates, type StateRunOptions, type StateRunReturn } from './states';
export { jidToTime } from '../../core/protocol/jid';
