/**
 * Python's `repr` and `str(type(x))` for values that came in a job, so `test.arg_repr` and
 * `test.arg_type` answer what a Salt minion answers.
 */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (Buffer.isBuffer(v)) return `b'${v.toString('latin1')}'`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
  return String(v);
}

/** Python's repr of a tuple: `()`, `(1,)`, `(1, 'two')`. */
export function pyTupleRepr(items: readonly unknown[]): string {
  if (items.length === 1) return `(${pyRepr(items[0])},)`;
  return `(${items.map(pyRepr).join(', ')})`;
}

/** `str(type(v))` in Python 3. */
export function pyType(v: unknown): string {
  let name: string;
  if (v === null || v === undefined) name = 'NoneType';
  else if (typeof v === 'boolean') name = 'bool';
  else if (typeof v === 'number') name = Number.isInteger(v) ? 'int' : 'float';
  else if (typeof v === 'bigint') name = 'int';
  else if (typeof v === 'string') name = 'str';
  else if (Array.isArray(v)) name = 'list';
  else if (Buffer.isBuffer(v)) name = 'bytes';
  else name = 'dict';
  return `<class '${name}'>`;
}
