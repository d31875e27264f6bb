import { recordInjection } from './metadata';

/** Options of {@link inject}. */
export interface InjectOptions {
  /** The parameter gets `undefined` when the host does not provide the service. */
  optional?: boolean;
}

/**
 * Names the service a constructor parameter receives (VS Code's convention: the id and the
 * interface share one name). Records metadata only; the loader builds the instance from the
 * container it owns and refuses a class whose parameters name unknown services.
 *
 * @example
 * constructor(
 *   @inject(IShell) private readonly shell: IShell,
 *   @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
 * ) {}
 */
export function inject(id: symbol, options: InjectOptions = {}): ParameterDecorator {
  if (typeof id !== 'symbol') throw new TypeError(`@inject needs a service id such as IShell (got ${String(id)})`);
  return (target, propertyKey, index) => {
    if (propertyKey !== undefined) throw new TypeError('@inject marks constructor parameters only');
    recordInjection(target, { index, token: id, optional: options.optional === true });
  };
}

/**
 * A service id that survives two copies of brine in one process (a plugin with its own
 * node_modules/brine): ids live in the global symbol registry under `brine.<name>`.
 *
 * @example
 * export const IPackages: unique symbol = Symbol.for('brine.IPackages'); // what serviceId('IPackages') returns
 */
export function serviceId(name: string): symbol {
  return Symbol.for(`brine.${name}`);
}

/** A service id's name, for messages ("depends on unknown service IShell"). */
export function serviceName(id: unknown): string {
  if (typeof id === 'symbol') return (id.description ?? id.toString()).replace(/^brine\./, '');
  return String(id);
}
