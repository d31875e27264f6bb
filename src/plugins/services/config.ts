import type { IConfig } from '../api/services';

/**
 * {@link IConfig} over a plain options object, copied and frozen so plugins cannot change it.
 *
 * @example
 * new StaticConfig({ id: 'web1' }).get('id') // 'web1'
 */
export class StaticConfig implements IConfig {
  private readonly options: Readonly<Record<string, unknown>>;

  constructor(options: Record<string, unknown>) {
    this.options = Object.freeze(structuredClone(options));
  }

  get<T = unknown>(key: string, defaultValue?: T): T {
    return (Object.prototype.hasOwnProperty.call(this.options, key) ? this.options[key] : defaultValue) as T;
  }

  all(): Record<string, unknown> {
    return structuredClone(this.options) as Record<string, unknown>;
  }
}
