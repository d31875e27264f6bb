/**
 * The `code` of what `fn` throws, or undefined when it does not throw: tests assert codes, not
 * wording. With `cls`, what is thrown must also be an instance of it.
 */
export function codeOf(fn: () => unknown, cls?: abstract new (...args: never[]) => Error): string | undefined {
  try {
    fn();
  } catch (err) {
    if (cls && !(err instanceof cls)) throw new Error(`expected a ${cls.name}, got ${String(err)}`, { cause: err });
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
