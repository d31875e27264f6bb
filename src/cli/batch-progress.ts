/**
 * The batch progress bar, drawn on stderr when it is a terminal (stdout keeps Salt's plain
 * lines, so a pipe or a file gets exactly what Salt prints).
 *
 *   const bar = new BatchProgress(10, (t) => process.stderr.write(t));
 *   bar.draw(3, 2);   // "\r[######              ] 3/10 done, 2 running"
 *   bar.done(10);
 */
const WIDTH = 20;

export class BatchProgress {
  private last = '';

  constructor(
    private readonly total: number,
    private readonly write: (text: string) => void,
  ) {}

  /** Redraws the bar in place; nothing is written when it has not changed. */
  draw(finished: number, running: number): void {
    const line = progressLine(finished, running, this.total);
    if (line === this.last) return;
    this.last = line;
    this.write(`\r${line}\x1b[K`);
  }

  /** Draws the final state and ends the line. */
  done(finished: number): void {
    this.draw(finished, 0);
    this.write('\n');
  }
}

export function progressLine(finished: number, running: number, total: number): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, finished / total)) : 1;
  const filled = Math.round(ratio * WIDTH);
  return `[${'#'.repeat(filled)}${' '.repeat(WIDTH - filled)}] ${finished}/${total} done, ${running} running`;
}
