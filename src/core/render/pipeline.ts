/**
 * The renderer pipeline: a file's first line `#!jinja|yaml` (or the configured default) names
 * the renderers its text goes through, left to right. Built-in renderers: jinja, yaml, json,
 * text. Python renderers are refused with one line saying so; other names may come from
 * renderer plugins registered in a {@link RendererRegistry}.
 */
import { RenderError } from './errors';
import { renderJinja, type SaltCaller } from './jinja/environment';
import { loadSaltYaml } from './yaml-loader';

/** What every renderer of one pipeline sees. */
export interface RenderContext {
  /** The file's path (for messages), and its name inside the roots (for imports). */
  path?: string;
  name: string;
  sls: string;
  saltenv: string;
  roots: readonly string[];
  /** Template variables (grains, pillar, opts, saltenv, sls, tplfile, ...). */
  context: Record<string, unknown>;
  caller?: SaltCaller;
  /** Text after the renderer's name in the shebang (`#!yaml strict` → `strict`). */
  argline: string;
}

/** A renderer: text (or the data of the renderer before it) in, text or data out. */
export interface Renderer {
  readonly name: string;
  render(input: unknown, ctx: RenderContext): unknown;
}

/** Renderers Salt has that run Python or need Python libraries; brine refuses them by name. */
const PYTHON_RENDERERS = new Set([
  'py',
  'pyobjects',
  'pydsl',
  'mako',
  'wempy',
  'genshi',
  'cheetah',
  'stateconf',
  'yamlex',
  'dson',
  'hjson',
  'gpg',
  'nacl',
  'aws_kms',
  'jsonnet',
  'pass',
  'plist',
  'redis',
  'tomlkit',
]);

function text(input: unknown): string {
  if (typeof input === 'string') return input;
  throw new RenderError('UNKNOWN_RENDERER', 'a text renderer received data: put it first in the pipe (e.g. #!jinja|yaml)');
}

function dropShebang(s: string): string {
  return s.startsWith('#!') ? s.slice(s.indexOf('\n') + 1 || s.length) : s;
}

const BUILTIN: Renderer[] = [
  {
    name: 'jinja',
    render: (input, ctx) => renderJinja({ text: text(input), name: ctx.name, roots: ctx.roots, context: ctx.context, caller: ctx.caller }),
  },
  { name: 'yaml', render: (input) => loadSaltYaml(text(input)) },
  {
    name: 'json',
    render(input) {
      const body = dropShebang(text(input));
      try {
        return JSON.parse(body);
      } catch (err) {
        throw new RenderError('JSON_SYNTAX', (err as Error).message, { cause: err });
      }
    },
  },
  { name: 'text', render: (input) => dropShebang(text(input)) },
];

/** The renderers a pipeline may use, by name. Plugins add theirs with {@link RendererRegistry.add}. */
export class RendererRegistry {
  private readonly renderers = new Map<string, Renderer>();

  constructor(renderers: readonly Renderer[] = BUILTIN) {
    for (const r of renderers) this.add(r);
  }

  /** Add (or replace) a renderer; a plugin may also implement one of Salt's names, e.g. gpg. */
  add(renderer: Renderer): void {
    this.renderers.set(renderer.name, renderer);
  }

  get(name: string): Renderer | undefined {
    return this.renderers.get(name);
  }

  names(): string[] {
    return [...this.renderers.keys()].sort();
  }
}

/** The default registry (built-in renderers). */
export const defaultRenderers = new RendererRegistry();

/** One step of a pipe: a renderer name and its argline. */
export interface PipeStep {
  name: string;
  argline: string;
}

/** Parse `jinja|yaml` / `jinja | yaml` / `yaml strict` into steps. */
export function parsePipe(pipe: string): PipeStep[] {
  return pipe
    .split('|')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const sp = s.search(/\s/);
      return sp < 0 ? { name: s, argline: '' } : { name: s.slice(0, sp), argline: s.slice(sp).trim() };
    });
}

/**
 * The pipe a text asks for: its `#!` first line (not `#!/`, a real interpreter line), else the
 * default. Salt leaves the shebang line in the text (Jinja passes it on, YAML reads a comment).
 */
export function pipeOf(source: string, defaultPipe = 'jinja|yaml'): PipeStep[] {
  const first = source.slice(0, source.indexOf('\n') < 0 ? source.length : source.indexOf('\n')).trim();
  if (first.startsWith('#!') && !first.startsWith('#!/')) return parsePipe(first.slice(2));
  return parsePipe(defaultPipe);
}

/** Check a pipe before running it: unknown names and Python renderers are refused. */
export function checkPipe(steps: PipeStep[], registry: RendererRegistry, where: string): Renderer[] {
  return steps.map((step) => {
    const r = registry.get(step.name);
    if (r) return r;
    const supported = registry.names().join(', ');
    if (PYTHON_RENDERERS.has(step.name)) {
      throw new RenderError(
        'UNSUPPORTED_RENDERER',
        `${where}: the '#!${step.name}' renderer is not supported: brine does not run Python; use one of ${supported} (e.g. #!jinja|yaml), or a renderer plugin`,
      );
    }
    throw new RenderError('UNKNOWN_RENDERER', `${where}: unknown renderer '${step.name}'; available renderers: ${supported}`);
  });
}

/** Run `input` through the pipe. */
export async function runPipe(
  input: string,
  steps: PipeStep[],
  registry: RendererRegistry,
  ctx: Omit<RenderContext, 'argline'>,
  where: string,
): Promise<unknown> {
  const renderers = checkPipe(steps, registry, where);
  let data: unknown = input;
  for (let i = 0; i < renderers.length; i++) {
    data = await renderers[i].render(data, { ...ctx, argline: steps[i].argline });
  }
  return data;
}
