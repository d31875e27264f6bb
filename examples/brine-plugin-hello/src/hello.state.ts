import { readFile, rename, writeFile } from 'node:fs/promises';
import { State, StateModule, arg, type StateContext, type StateReturn } from 'brine/plugin';

/**
 * An example state module: `hello.greeting` keeps a file holding a greeting. A state function
 * says what it changed (`changes`), changes nothing in test mode (`result: null` and what it
 * would do), and changes nothing when the file is right already. `unless`, `onlyif`, `creates`
 * and every requisite come with the state system: the module does not handle them.
 */
@StateModule('hello', { doc: 'Keep greetings in files' })
export class HelloStates {
  @State({
    summary: 'The file `name` holds "hello <who>"',
    examples: ['salt-call state.single hello.greeting /tmp/greeting who=bob'],
    args: { name: arg.string({ nonEmpty: true }), who: arg.string({ default: 'world' }) },
  })
  async greeting({ name, who }: { name: string; who: string }, ctx: StateContext): Promise<StateReturn> {
    const want = `hello ${who}\n`;
    const have = await readFile(name, 'utf8').catch(() => null);
    if (have === want) return { name, result: true, changes: {}, comment: `${name} already greets ${who}` };
    const changes = { greeting: { old: have === null ? null : have.trim(), new: want.trim() } };
    if (ctx.test) return { name, result: null, changes, comment: `${name} would greet ${who}` };
    // Written beside the target, then renamed over it: a failure leaves the old file as it was.
    await writeFile(`${name}.tmp`, want);
    await rename(`${name}.tmp`, name);
    return { name, result: true, changes, comment: `${name} greets ${who}` };
  }

  // What a `watch` runs when a watched state changed (Salt's mod_watch): the greeting is said
  // again, into `<name>.said`.
  @State({ modWatch: true, args: { name: arg.string(), who: arg.string({ default: 'world' }), sfun: arg.string({ optional: true }) } })
  async mod_watch({ name, who }: { name: string; who: string }, ctx: StateContext): Promise<StateReturn> {
    if (ctx.test) return { name, result: null, changes: {}, comment: `hello ${who} would be said again` };
    await writeFile(`${name}.said`, `hello ${who}\n`, { flag: 'a' });
    return { name, result: true, changes: { said: `hello ${who}` }, comment: `hello ${who} said again` };
  }
}
