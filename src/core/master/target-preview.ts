/**
 * Salt's `CkMinions.check_minions` from another process on the master's host (the CLIs, salt-run,
 * salt-api): which accepted minions a target matches, from the key store and the master's minion
 * data cache (grains and pillar), read fresh each time. What `salt --preview-target`,
 * `batch_safe_limit`, salt-cp and the runners' targets use; the master itself targets from memory.
 */
import type { MasterConfig } from '../config';
import { expectedMinions, type TargetType } from '../targeting';
import type { KeyStore } from './key-store';
import { readMinionData } from './minion-data-cache';

/** The ids a target matches. */
export type ResolveTarget = (tgt: string | string[], tgtType: string) => Set<string>;

export function targetResolver(master: Pick<MasterConfig, 'cachedir' | 'nodegroups'>, keys: KeyStore): ResolveTarget {
  const nodegroups = master.nodegroups ?? {};
  return (tgt, tgtType) => {
    const minions = (keys.list('accepted') as string[]).map((id) => {
      const data = readMinionData(master.cachedir, id);
      return { id, grains: data.grains, pillar: data.pillar };
    });
    return new Set(expectedMinions({ tgt, tgtType: tgtType as TargetType }, minions, { nodegroups }));
  };
}
