/** Small helpers to summarise timings and print aligned tables. */

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** The 95th percentile (nearest rank). */
  p95: number;
  samples: number[];
}

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) throw new RangeError('summarize: no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
  return { median, min: sorted[0], max: sorted[sorted.length - 1], p95, samples };
}

/** A table with a header row; columns after the first are right-aligned (they hold numbers). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n') + '\n';
}

export function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
