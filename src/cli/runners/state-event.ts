/**
 * `salt-run state.event [tagmatch='*'] [count=-1] [quiet=False] [pretty=False]`: streams the
 * master's event bus as Salt's state.event does (salt/modules/state.py event()): one line per
 * event, `tag<TAB>json`; with pretty=True the JSON is indented by 4 with sorted keys (so it spans
 * lines after the tab). tagmatch is Salt's expr_match: the exact tag, a glob, or a regex.
 *
 *   await streamEvents({ sockDir, arg: ['salt/job/*', { __kwarg__: true, count: 2 }] }, print);
 */
import { RunnerArgError } from '../../runners/errors';
import { BrineError } from '../../core/errors';
import { listenToMaster } from '../../core/client/event-listener';
import { eventData } from '../../core/client/local-client-wait';
import { exprMatch } from '../../core/pycompat';
import { formatJson } from '../output';
import { unpackArgs } from '../../core/protocol/salt-args';

export interface StateEventOptions {
  sockDir: string;
  /** Positional arguments; a trailing `{ __kwarg__: true, ... }` map holds the keyword arguments. */
  arg: unknown[];
}

interface EventArgs {
  tagmatch: string;
  count: number;
  quiet: boolean;
  pretty: boolean;
}

const PARAMS = ['tagmatch', 'count', 'quiet', 'sock_dir', 'pretty', 'node'] as const;

function bad(message: string): never {
  throw new RunnerArgError('BAD_RUNNER_ARG', `state.event: ${message}`, {
    hint: "e.g. salt-run state.event 'salt/job/*' count=2 pretty=True",
  });
}

function truthy(name: string, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return bad(`${name} must be True or False`);
}

/** Binds Salt's parameters (tagmatch, count, quiet, sock_dir, pretty, node) from the CLI arguments. */
export function eventArgs(arg: unknown[]): EventArgs & { sockDir?: string } {
  const { args: positional, kwargs: kw } = unpackArgs(arg);
  if (positional.length > PARAMS.length) bad(`takes at most ${PARAMS.length} positional arguments`);
  const bound: Record<string, unknown> = {};
  positional.forEach((v, i) => (bound[PARAMS[i]] = v));
  for (const [k, v] of Object.entries(kw)) {
    if (!(PARAMS as readonly string[]).includes(k)) bad(`got an unexpected keyword argument '${k}'`);
    if (k in bound) bad(`got multiple values for argument '${k}'`);
    bound[k] = v;
  }
  const tagmatch = bound.tagmatch ?? '*';
  if (typeof tagmatch !== 'string' && typeof tagmatch !== 'number') bad('tagmatch must be a tag, glob or regex');
  const count = bound.count ?? -1;
  if (typeof count !== 'number' || !Number.isInteger(count)) bad('count must be an integer (-1 streams forever)');
  if (bound.node !== undefined && bound.node !== 'master') bad("only node='master' is served here");
  if (bound.sock_dir !== undefined && typeof bound.sock_dir !== 'string') bad('sock_dir must be a path');
  return {
    tagmatch: String(tagmatch),
    count,
    quiet: truthy('quiet', bound.quiet),
    pretty: truthy('pretty', bound.pretty),
    sockDir: bound.sock_dir as string | undefined,
  };
}

/** One event as state.event prints it. */
export function eventLine(tag: string, data: unknown, pretty: boolean): string {
  return `${tag}\t${formatJson(data, pretty ? 'pretty' : null)}`;
}

/**
 * Streams until `count` matching events have been printed (never, with -1). `ready` is called once
 * the subscription is live, so a caller (or a test) knows no later event can be missed.
 */
export async function streamEvents(opts: StateEventOptions, print: (line: string) => void, ready?: () => void): Promise<void> {
  const a = eventArgs(opts.arg);
  const sub = listenToMaster(a.sockDir ?? opts.sockDir, ['']);
  try {
    await sub.sync(5000);
    ready?.();
    let left = a.count;
    while (left !== 0) {
      const ev = await sub.next(3_600_000);
      if (!ev || !exprMatch(ev.tag, a.tagmatch)) continue;
      if (!a.quiet) print(`${eventLine(ev.tag, eventData(ev.body), a.pretty)}\n`);
      if (left > 0) left -= 1;
    }
  } finally {
    sub.close();
  }
}
