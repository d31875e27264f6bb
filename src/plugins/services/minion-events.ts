import type { IMasterLink } from '../api/master-link';
import type { IMinionEvents, MinionEvent } from '../api/minion-events';
import type { ILogger } from '../api/services';

/**
 * The minion's event bus, in the minion's process. Salt's minion forwards an event tagged
 * `fire_master*` to its master (salt/minion.py handle_event: `_fire_master(data['data'],
 * data['tag'], ...)`); this bus does the same through the master link. A forward that fails (no
 * master: salt-call --local) is logged, as Salt's minion logs it: the event itself was fired.
 */
export class MinionEventBus implements IMinionEvents {
  private readonly listeners = new Set<(event: MinionEvent) => void>();

  constructor(
    private readonly master: IMasterLink,
    private readonly log: ILogger,
  ) {}

  async fire(tag: string, data: unknown): Promise<boolean> {
    for (const listener of [...this.listeners]) listener({ tag, data });
    if (tag.startsWith('fire_master')) await this.forward(data);
    return true;
  }

  subscribe(listener: (event: MinionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async forward(data: unknown): Promise<void> {
    const d = (data ?? {}) as Record<string, unknown>;
    if (typeof d.tag !== 'string' || d.tag === '') {
      this.log.warning('An event tagged fire_master needs {tag: ..., data: ...} in its data: nothing sent to the master');
      return;
    }
    try {
      await this.master.fireEvent(d.tag, d.data ?? {});
    } catch (err) {
      this.log.error(`Could not forward the event ${d.tag} to the master: ${(err as Error).message}`);
    }
  }
}
