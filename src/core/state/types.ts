/**
 * The data shapes of Salt's state compiler, as Salt names them (salt/state.py): high data
 * (`{ID: {module: [args..., 'fun', {order: N}], __sls__, __env__}}`), low chunks (one per
 * function call) and the result of one state.
 */

/** One ID's body in high data: module keys holding argument lists, plus `__sls__`, `__env__`, ... */
export type HighBody = Record<string, unknown>;
/** Compiled high data, in Salt's insertion order. `__extend__` / `__exclude__` are Salt's own keys. */
export type HighData = Record<string, HighBody | unknown>;

/** One low chunk: `state`, `name`, `__sls__`, `__env__`, `__id__`, arguments, `order`, `fun`. */
export interface LowChunk {
  state: string;
  name: string;
  __id__: string;
  __sls__: string;
  __env__: string;
  fun: string;
  order: number;
  [arg: string]: unknown;
}

/** What a state returns, with the bookkeeping the runner adds. Key order is the output's order. */
export type StateResult = Record<string, unknown> & {
  result: boolean | null;
  changes: Record<string, unknown>;
  comment?: unknown;
};

/** The requisites Salt 3007 knows, and their `_in` forms. */
export const REQUISITES = [
  'require',
  'require_any',
  'watch',
  'watch_any',
  'prereq',
  'onfail',
  'onfail_any',
  'onfail_all',
  'onchanges',
  'onchanges_any',
  'listen',
  'use',
] as const;
export const REQUISITE_INS = ['require_in', 'watch_in', 'onfail_in', 'onchanges_in', 'prereq_in', 'listen_in', 'use_in'] as const;
/** Keys that are not state arguments (Salt's STATE_REQUISITE_KEYWORDS + STATE_RUNTIME_KEYWORDS). */
export const REQUISITE_KEYWORDS = new Set<string>([...REQUISITES, ...REQUISITE_INS, 'prerequired']);
export const RUNTIME_KEYWORDS = new Set<string>([
  'fun',
  'state',
  'check_cmd',
  'failhard',
  'onlyif',
  'unless',
  'creates',
  'retry',
  'order',
  'parallel',
  'prereq',
  'prereq_in',
  'prerequired',
  'reload_modules',
  'reload_grains',
  'reload_pillar',
  'runas',
  'runas_password',
  'fire_event',
  'saltenv',
  'use',
  'use_in',
  '__env__',
  '__sls__',
  '__id__',
  '__orchestration_jid__',
  '__pub_user',
  '__pub_arg',
  '__pub_jid',
  '__pub_fun',
  '__pub_tgt',
  '__pub_ret',
  '__pub_pid',
  '__pub_tgt_type',
  '__prereq__',
  '__prerequired__',
  '__sls_included_from__',
  'name_order',
  '__reqs__',
  'sfun',
  'name',
]);

/** The tag of a low chunk's result: `<module>_|-<ID>_|-<name>_|-<function>`. */
export function stateTag(low: { state: string; __id__: string; name: string; fun: string }): string {
  return `${low.state}_|-${low.__id__}_|-${low.name}_|-${low.fun}`;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}
