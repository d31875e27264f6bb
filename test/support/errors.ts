/** The `code` of what `fn` throws, or undefined when it does not throw: tests assert codes, not wording. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

/** The same for a function that may return a promise. */
export async function codeOfAsync(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}
