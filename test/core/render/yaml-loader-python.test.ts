import { describe, expect, it } from 'vitest';
import { loadSaltYaml } from '../../../src/core/render/yaml-loader';
import { decode, tables } from '../pycompat/python-tables';

// The SLS loader reads scalars as Salt's own YAML loader does: the same table pycompat's loader
// is held to (printed by Salt 3007.10's salt.utils.yaml.safe_load).
describe("SLS YAML against Salt's loader", () => {
  const rows = tables.yaml.filter((r) => 'ok' in r) as { text: string; ok: unknown }[];
  it.each(rows.map((r) => [r.text, r] as const))('%j', (text, row) => {
    expect(loadSaltYaml(text)).toEqual(decode(row.ok));
  });
});
