import { CommandExecutionError } from '../api/errors';
import { deepCopy } from '../../core/pycompat';
import type { IPillar, PillarCompileOptions } from '../api/services';

type Dict = Record<string, unknown>;

/** How a minion gets a freshly compiled pillar: a `_pillar` request to its master, or a local compile. */
export type PillarSource = (options: PillarCompileOptions) => Promise<Dict>;

/**
 * The pillar a minion holds (Salt's `__pillar__`): compiled once on first use, again on refresh;
 * concurrent first uses share one compile. Callers get copies, so no job changes another's view.
 */
export class MinionPillar implements IPillar {
  private held?: Promise<Dict>;
  private last?: Dict;

  constructor(private readonly source: PillarSource) {}

  /** The pillar last compiled, if any, without waiting (pillar targeting of publications). */
  snapshot(): Dict | undefined {
    return this.last;
  }

  async current(): Promise<Dict> {
    this.held ??= this.source({}).then((data) => (this.last = data));
    try {
      return deepCopy(await this.held);
    } catch (err) {
      // A failed compile is not kept: the next use asks again.
      this.held = undefined;
      throw err;
    }
  }

  compile(options: PillarCompileOptions = {}): Promise<Dict> {
    return this.source(options);
  }

  async refresh(): Promise<Dict> {
    const next = this.source({});
    const data = await next;
    this.held = Promise.resolve(data);
    this.last = data;
    return deepCopy(data);
  }
}

function noPillar(): CommandExecutionError {
  return new CommandExecutionError(
    'No pillar here: this minion was started without a pillar source (a master, or file_client: local with pillar_roots)',
  );
}

/** The pillar of a plugin set loaded without one (tests, tools): every use says so. */
export class NoPillar implements IPillar {
  current(): Promise<Dict> {
    return Promise.reject(noPillar());
  }
  compile(): Promise<Dict> {
    return Promise.reject(noPillar());
  }
  refresh(): Promise<Dict> {
    return Promise.reject(noPillar());
  }
}
