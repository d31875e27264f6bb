/** The ids of the simulated minions: bench-00000, bench-00001, ... (sim-worker.ts makes them). */
export function minionIdOf(index: number): string {
  return `bench-${String(index).padStart(5, '0')}`;
}
