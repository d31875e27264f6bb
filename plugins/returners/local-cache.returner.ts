import { Fn, IJobCache, Returner, arg, inject, type JobLoad, type JobReturn } from 'brine/plugin';

/**
 * Salt's `local_cache` returner: job returns and publications in this daemon's own job cache.
 * On the master that is the master job cache (`salt-run jobs.*` reads it); on a minion,
 * `--return local_cache` keeps the returns in an SQLite store in the minion's `cachedir`
 * (Salt writes `<cachedir>/jobs/` files there; brine's job cache is one SQLite file).
 */
@Returner('local_cache')
export class LocalCacheReturner {
  constructor(@inject(IJobCache) private readonly cache: IJobCache) {}

  @Fn({ summary: "Store one job return in this daemon's job cache", args: { ret: arg.dict() } })
  async returner({ ret }: { ret: Record<string, unknown> }): Promise<void> {
    await this.cache.saveReturn(ret as JobReturn);
  }

  @Fn({
    summary: 'Store the publication of a job',
    args: { jid: arg.string(), load: arg.dict(), minions: arg.list({ optional: true }) },
  })
  async save_load({ jid, load, minions }: { jid: string; load: Record<string, unknown>; minions?: unknown[] }): Promise<void> {
    await this.cache.saveLoad(jid, load as JobLoad, (minions ?? []).map(String));
  }

  @Fn({ summary: 'The publication of a job, {} when unknown', args: { jid: arg.string() } })
  async get_load({ jid }: { jid: string }): Promise<Record<string, unknown>> {
    return (await this.cache.getLoad(jid)) ?? {};
  }

  @Fn({ summary: 'The returns of a job by minion: {minion: {return, out}}', args: { jid: arg.string() } })
  async get_jid({ jid }: { jid: string }): Promise<Record<string, Record<string, unknown>>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [id, r] of Object.entries(await this.cache.getReturns(jid))) {
      out[id] = { return: r.return, ...(r.out === undefined ? {} : { out: r.out }) };
    }
    return out;
  }
}
