/** A Jinja runtime error with Python's wording (`TypeError: ...`), raised from a template. */
export class TemplateRuntimeError extends Error {
  constructor(
    message: string,
    public line?: number,
  ) {
    super(message);
    this.name = 'TemplateRuntimeError';
  }
}
