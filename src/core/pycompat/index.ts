/**
 * Python's and Salt's semantics in one home: whatever brine must do exactly as CPython or Salt
 * does it lives here once, tested against tables printed by real Python (test/core/pycompat/).
 * Pure functions; nothing here knows about sockets, jobs or plugins.
 */
export {
  compareCodePoints,
  entriesOf,
  isBytes,
  isDict,
  isMapping,
  pyBytesRepr,
  pyFloat,
  pyNumber,
  pyRepr,
  pyStr,
  pyStrRepr,
  pyTupleRepr,
  pyTuple,
  isTuple,
  pyTypeName,
  unprintable,
} from './repr';
export { PyFloat, isPyFloat, pyFloatOf, unboxFloats } from './float';
export { pyFloatText, pyIntText, pyLines, pySplit, pySplitlines, pyStrip } from './text';
export { formatPprint } from './pprint';
export { formatNested, nestedLines, type NestedColors, type NestedOptions } from './nested';
export { compileGlob, fnmatch, hasGlobChars } from './fnmatch';
export { compilePythonRegex, compilePythonSearch, pythonReMatch, translatePythonRegex } from './regex';
export { ShlexError, shlexSplit } from './shlex';
export { traverse } from './traverse';
export { isTrue, pyTruthy } from './is-true';
export { MONTHS, pyAsctime, pyStrftime } from './time';
export { localTime, localZoneAt, utcStamp, type LocalTime } from './local-time';
export { loadYaml, loadYamlWithLines, lineOf, type YamlValue } from './yaml11-load';
export {
  classifyPlainScalar,
  constructBool,
  constructFloat,
  constructInt,
  resolvePlainScalar,
  type PlainScalarKind,
} from './yaml11-resolver';
export { formatYaml } from './yaml-emitter';
export { pyEqual } from './equal';
export { dictUpdate } from './dict-update';
export { ORDERED_DICT, markOrdered, isOrdered, deepCopy } from './ordered';
export { yamlifyArg } from './yamlify';
export { SliceError, pySlice } from './slice';
export { formatJson, pyJsonDumps, jsonString, type JsonIndent } from './json';
export { exprMatch } from './expr-match';
export { checkIncludeExclude } from './include-exclude';
export {
  compareIp,
  formatIp,
  formatNetwork,
  inNetwork,
  isLoopback,
  isPrivate,
  maskOf,
  parseIp,
  parseNetwork,
  parsePrefix,
  prefixToNetmask,
  type IpAddress,
  type IpNetwork,
} from './ipaddress';
