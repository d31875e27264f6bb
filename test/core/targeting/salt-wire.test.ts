import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedMinions, matchTarget, type MinionData, type Target, type TargetType } from '../../../src/core/targeting';

// The captured Salt 3007 session: the grains each minion sent with its pillar request, and the
// master's answer (the minions it resolved) to each `salt` CLI publish.
const WIRE = path.resolve(__dirname, '../../..', '../shared/salt-wire');

interface Case {
  label: string;
  request: { session?: string; decrypted?: { id: string; grains: Record<string, unknown> }; load?: Record<string, unknown> };
  reply: { payload_msgpack_decoded?: { load?: { minions: string[] } } };
}

function cases(file: string): Case[] {
  return (JSON.parse(readFileSync(path.join(WIRE, file), 'utf8')) as { cases: Case[] }).cases;
}

const minions = new Map<string, MinionData>();
for (const c of cases('pillar.json')) {
  const d = c.request.decrypted;
  if (c.request.session === 's2' && d !== undefined) minions.set(d.id, { id: d.id, grains: d.grains });
}

const publishes = cases('cli-publish.json').map((c) => {
  const load = c.request.load!;
  const kwargs = (load.kwargs ?? {}) as { delimiter?: string };
  const target: Target = { tgt: load.tgt as string | string[], tgtType: load.tgt_type as TargetType, delimiter: kwargs.delimiter };
  return { label: c.label, target, resolved: c.reply.payload_msgpack_decoded?.load?.minions ?? [] };
});

describe('targets against a captured Salt master', () => {
  it('has the three minions and eleven publishes of session s2', () => {
    expect([...minions.keys()].sort()).toEqual(['db1', 'web1', 'web2']);
    expect(publishes).toHaveLength(11);
    expect(publishes.filter((p) => p.resolved.length > 0)).toHaveLength(10);
  });

  it.each(publishes)('$label resolves the minions Salt resolved', ({ target, resolved }) => {
    expect(expectedMinions(target, [...minions.values()]).sort()).toEqual([...resolved].sort());
    for (const m of minions.values()) {
      expect(matchTarget(target, m)).toBe(resolved.includes(m.id));
    }
  });
});
