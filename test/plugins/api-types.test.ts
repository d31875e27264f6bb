import { describe, expect, it } from 'vitest';
import { Fn, Module, arg } from 'brine/plugin';
import { exploreModule } from '../../src/plugins/loader/explorer';

// Compile-time checks: `npm run typecheck` fails if a method's parameter type disagreed with its
// schema and the line were not marked @ts-expect-error (and fails if a marked line compiled).
@Module('typed')
class Typed {
  @Fn({ args: { name: arg.string({ nonEmpty: true }), p: arg.string({ default: '!' }) } })
  ok({ name, p }: { name: string; p: string }): string {
    return name + p;
  }

  @Fn({ args: { mode: arg.string({ enum: ['a', 'b'] }), n: arg.integer({ optional: true }) } })
  narrowed({ mode, n }: { mode: 'a' | 'b'; n?: number }): string {
    return `${mode}${n ?? ''}`;
  }

  @Fn({ args: { l: arg.list({ of: arg.integer() }) }, varargs: 'rest', kwargs: true })
  extras({ l, rest, kwargs }: { l: number[]; rest: unknown[]; kwargs: Record<string, unknown> }): unknown {
    return [l, rest, kwargs];
  }

  // @ts-expect-error -- n is declared an integer, the method takes a string
  @Fn({ args: { name: arg.string(), n: arg.integer() } })
  wrongType({ name, n }: { name: string; n: string }): string {
    return name + n;
  }

  // @ts-expect-error -- name is optional without a default, the method says it is always there
  @Fn({ args: { name: arg.string({ optional: true }) } })
  wrongPresence({ name }: { name: string }): string {
    return name;
  }

  // @ts-expect-error -- a list of integers, not of strings
  @Fn({ args: { l: arg.list({ of: arg.integer() }) } })
  wrongItems({ l }: { l: string[] }): string[] {
    return l;
  }
}

describe('typed schema', () => {
  it('records every function, typed or not', () => {
    expect([...exploreModule(Typed).functions.keys()].sort()).toEqual([
      'extras',
      'narrowed',
      'ok',
      'wrongItems',
      'wrongPresence',
      'wrongType',
    ]);
  });
});
