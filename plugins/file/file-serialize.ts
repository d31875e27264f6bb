/**
 * file.serialize's formats as Salt's serializers write and read them: json is
 * `json.dumps(indent=2, separators=(',', ': '), sort_keys=True)`, yaml is PyYAML's safe dump in
 * block style (`default_flow_style=False`, keys sorted); `merge_if_exists` merges as
 * `salt.utils.dictupdate.merge_recurse`.
 */
import { dictUpdate, formatYaml, isDict, loadYaml, pyEqual, pyJsonDumps } from 'brine/plugin';

/** The text Salt's `<serializer>.serialize` returns (without the newline file.serialize adds). */
export function serializeData(serializer: 'yaml' | 'json', data: unknown): string {
  if (serializer === 'json') return pyJsonDumps(data, { indent: 2, sortKeys: true });
  const out = formatYaml(data);
  // Salt's yaml serializer strips the document end of a lone scalar and the last newline.
  if (out.endsWith('\n...\n')) return out.slice(0, -5);
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/** The data of an existing file (merge_if_exists). */
export function deserializeData(serializer: 'yaml' | 'json', text: string): unknown {
  return serializer === 'json' ? JSON.parse(text) : loadYaml(text);
}

/** `merge_recurse(existing, dataset)`: a deep copy of existing updated by dataset (lists replaced). */
export function mergeRecurse(existing: unknown, dataset: unknown): unknown {
  if (!isDict(existing) || !isDict(dataset)) return dataset;
  return dictUpdate(structuredClone(existing), structuredClone(dataset));
}

/** `salt.utils.dictdiffer.recursive_diff(old, new).diffs`: changed leaves as {old, new}, nested by key. */
export function recursiveDiff(old: unknown, next: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const a = isDict(old) ? old : {};
  const b = isDict(next) ? next : {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (isDict(a[key]) && isDict(b[key])) {
      const inner = recursiveDiff(a[key], b[key]);
      if (Object.keys(inner).length > 0) out[key] = inner;
    } else if (!pyEqual(a[key], b[key])) {
      out[key] = { new: key in b ? b[key] : '', old: key in a ? a[key] : '' };
    }
  }
  return out;
}
