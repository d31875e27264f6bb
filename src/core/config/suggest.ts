/** "did you mean" for misspelt option names: the closest known name within a small edit distance. */

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

export function closestName(name: string, known: readonly string[]): string | null {
  const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
