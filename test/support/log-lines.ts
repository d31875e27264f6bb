/** A logger that keeps each line as `LEVEL message`, for tests that check what a component says. */
export function logLines() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      error: (m: string) => void lines.push(`ERROR ${m}`),
      warning: (m: string) => void lines.push(`WARNING ${m}`),
      info: (m: string) => void lines.push(`INFO ${m}`),
    },
  };
}
