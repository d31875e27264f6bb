/**
 * Salt's rendering of SLS files, top files, pillar files and templates.
 *
 * @example
 * const data = await renderFile({ path: '/srv/salt/web/init.sls', name: 'web/init.sls', sls: 'web',
 *   saltenv: 'base', roots: ['/srv/salt'], context: { grains, pillar, opts }, caller });
 * // { 'nginx': { 'pkg.installed': [] }, ... }   (keys in file order)
 */
import { readFile } from 'node:fs/promises';
import { slsContext } from './context';
import { RenderError } from './errors';
import { renderJinja, type SaltCaller } from './jinja/environment';
import { defaultRenderers, pipeOf, runPipe, type RendererRegistry } from './pipeline';

export { RenderError, errorContext, saltRenderErrorText, type RenderErrorCode } from './errors';
export { slsContext } from './context';
export { loadSaltYaml } from './yaml-loader';
export { isCallProblem, type SaltCaller } from './jinja/environment';
export { RendererRegistry, defaultRenderers, parsePipe, pipeOf, type Renderer, type RenderContext, type PipeStep } from './pipeline';

/** What {@link renderFile} renders. */
export interface RenderFileOptions {
  /** The text; read from `path` when absent. */
  text?: string;
  /** The file's absolute path (tplpath; read when `text` is absent). */
  path?: string;
  /** The file's name inside `roots` (`web/init.sls`): relative imports resolve from it. Default: derived from `sls`. */
  name?: string;
  /** The SLS name (`web`, `web.conf`); '' for a template that is no SLS. */
  sls?: string;
  saltenv?: string;
  /** Where `import`/`include` find templates: the saltenv's file_roots (or pillar_roots). */
  roots?: readonly string[];
  /** Template variables: grains, pillar, opts, plus any (a state's `context`/`defaults`). */
  context?: Record<string, unknown>;
  /** How `salt['mod.fun'](...)` reaches execution functions. */
  caller?: SaltCaller;
  /** The pipe when the text has no `#!` line (Salt's `renderer` option). Default `jinja|yaml`. */
  defaultPipe?: string;
  renderers?: RendererRegistry;
}

function templateName(opts: RenderFileOptions): string {
  if (opts.name !== undefined) return opts.name;
  const sls = opts.sls ?? '';
  if (!sls) return '';
  const rel = sls.replace(/\./g, '/');
  if (opts.path?.endsWith(`${rel}/init.sls`)) return `${rel}/init.sls`;
  return `${rel}.sls`;
}

function jinjaContext(opts: RenderFileOptions): Record<string, unknown> {
  const saltenv = opts.saltenv ?? 'base';
  const ctx: Record<string, unknown> = { saltenv, ...opts.context };
  if (opts.sls !== undefined) Object.assign(ctx, { sls: opts.sls }, slsContext(opts.path ?? templateName(opts), opts.sls));
  return ctx;
}

async function sourceText(opts: RenderFileOptions): Promise<string> {
  if (opts.text !== undefined) return opts.text;
  if (!opts.path) throw new RenderError('TEMPLATE_NOT_FOUND', 'renderFile needs the text or the path of a file');
  try {
    return await readFile(opts.path, 'utf8');
  } catch (err) {
    throw new RenderError('TEMPLATE_NOT_FOUND', `cannot read ${opts.path}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Render a file through its renderer pipe (`#!` line or `defaultPipe`) to data, as Salt's
 * `compile_template` does. Maps keep the file's key order. Throws {@link RenderError} whose message
 * is Salt's text, ready to follow `Rendering SLS 'base:web' failed: `.
 */
export async function renderFile(opts: RenderFileOptions): Promise<unknown> {
  const text = await sourceText(opts);
  const where = opts.path ?? (opts.sls ? `SLS '${opts.sls}'` : 'template');
  return runPipe(
    text,
    pipeOf(text, opts.defaultPipe),
    opts.renderers ?? defaultRenderers,
    {
      path: opts.path,
      name: templateName(opts),
      sls: opts.sls ?? '',
      saltenv: opts.saltenv ?? 'base',
      roots: opts.roots ?? [],
      context: jinjaContext(opts),
      caller: opts.caller,
    },
    where,
  );
}

/**
 * Render a Jinja template to text (`file.managed template: jinja`, `cmd.script template: jinja`).
 * The template's trailing newline is kept, as Salt keeps it.
 */
export async function renderTemplate(opts: RenderFileOptions): Promise<string> {
  const text = await sourceText(opts);
  return renderJinja({ text, name: templateName(opts), roots: opts.roots ?? [], context: jinjaContext(opts), caller: opts.caller });
}
