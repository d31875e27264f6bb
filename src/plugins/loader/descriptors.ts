import type { ArgDef } from '../api/args';
import type { FnContract, FnDocs, InjectionToken, PluginKind } from '../api/metadata';

/** A plugin class as written: any constructor. */
export type PluginClass = new (...args: never[]) => object;

/** One parameter of a module function, after applying the argument convention. */
export interface ParamSpec {
  name: string;
  /** `positional`: filled by position or by keyword; `rest`: takes the remaining positional values;
   *  `kwargs`: the options object that takes the remaining keyword arguments. */
  kind: 'positional' | 'rest' | 'kwargs';
  /** Has a default, so it may be left out. */
  optional: boolean;
  /** The declared argument (functions with a schema): coerced and validated before the call. */
  arg?: ArgDef;
  /** The default's source text, when the loader read it from plain-JS source (for `sys.argspec`). */
  defaultText?: string;
}

/** One callable function of a module. */
export interface FnDescriptor {
  /** Public name (`ping`), without the module. */
  name: string;
  /** The method's property name on the class. */
  method: string;
  /** The docstring as Salt's `sys.doc` shows it, rendered from `docs`. */
  doc: string;
  docs: FnDocs;
  params: ParamSpec[];
  /** Keyword names the options object accepts; null = any keyword, plus Salt's `__pub_*` data. */
  kwargsKeys: string[] | null;
  /**
   * `object`: the method receives one object keyed by parameter name (functions with a schema);
   * `positional`: values in parameter order (plain-JS functions read from source).
   */
  call: 'object' | 'positional';
  /** How the host calls it: `fn`, `state` (then a state context), `render`, `pillar`. */
  contract: FnContract;
  /** The outputter the CLI uses for this function's return, when it has one of its own. */
  outputter?: string;
}

/** A module class turned into data: what `sys.list_functions`/`sys.doc` can show without running it. */
export interface ModuleDescriptor {
  kind: PluginKind;
  name: string;
  doc: string;
  available?: (grains: Record<string, unknown>) => true | string | false;
  /** The name Salt's disable_* options know it by besides its own: its file's in Salt (`cmdmod`). */
  file?: string;
  cls: PluginClass;
  functions: Map<string, FnDescriptor>;
  injections: InjectionToken[];
}
