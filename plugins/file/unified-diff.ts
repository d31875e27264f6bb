/**
 * A unified diff of two texts as Salt's file states show it (difflib.unified_diff with empty
 * file names, 3 lines of context): `--- \n+++ \n@@ -a,b +c,d @@\n...`.
 */
function splitKeep(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

function range(start: number, len: number): string {
  const beginning = len === 0 ? start : start + 1;
  if (len === 1) return `${beginning}`;
  return `${beginning},${len}`;
}

export function unifiedDiff(before: string, after: string): string {
  return diffLines(splitKeep(before), splitKeep(after)).join('');
}

/**
 * file.append's form: difflib over lines without their ends, joined with newlines, so the
 * header lines (which keep theirs) are followed by an empty line.
 */
export function appendDiff(before: string, after: string): string {
  return diffLines(
    before.split(/\r?\n/).filter((_, i, all) => i < all.length - 1 || all[i] !== ''),
    after.split(/\r?\n/).filter((_, i, all) => i < all.length - 1 || all[i] !== ''),
    true,
  ).join('\n');
}

function diffLines(a: string[], b: string[], bare = false): string[] {
  // Longest common subsequence table (files handled here are config-sized).
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: { t: ' ' | '-' | '+'; line: string; ai: number; bi: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ t: ' ', line: a[i], ai: i++, bi: j++ });
    else if (j < m && (i >= n || lcs[i][j + 1] > lcs[i + 1][j])) ops.push({ t: '+', line: b[j], ai: i, bi: j++ });
    else ops.push({ t: '-', line: a[i], ai: i++, bi: j });
  }
  const out: string[] = ['--- \n', '+++ \n'];
  const body = (o: { t: string; line: string }): string =>
    bare ? o.t + o.line : o.t + (o.line.endsWith('\n') ? o.line : `${o.line}\n\\ No newline at end of file\n`);
  let k = 0;
  while (k < ops.length) {
    if (ops[k].t === ' ') {
      k++;
      continue;
    }
    let start = Math.max(0, k - 3);
    let end = k;
    while (end < ops.length) {
      if (ops[end].t !== ' ') {
        end++;
        continue;
      }
      let run = end;
      while (run < ops.length && ops[run].t === ' ') run++;
      if (run === ops.length || run - end > 6) {
        end = Math.min(end + 3, ops.length);
        break;
      }
      end = run;
    }
    const hunk = ops.slice(start, end);
    const aStart = hunk[0].ai;
    const bStart = hunk[0].bi;
    const aLen = hunk.filter((o) => o.t !== '+').length;
    const bLen = hunk.filter((o) => o.t !== '-').length;
    out.push(`@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@\n`);
    for (const o of hunk) out.push(body(o));
    k = end;
    start = end;
  }
  return out;
}
