/**
 * How an SLS file's text becomes data: Salt's renderer pipeline (src/core/render), with the
 * template variables Salt gives SLS files (grains, pillar, opts, saltenv, sls, tplfile, ...).
 */
import { RenderError, renderFile, renderTemplate, type SaltCaller } from '../render';
import type { SlsFile } from './sls-source';

export interface SlsRenderContext {
  saltenv: string;
  sls: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  /** The saltenv's roots, where Jinja imports are found. */
  roots: readonly string[];
}

/** A render failure; `message` is the text after Salt's `Rendering SLS 'env:sls' failed: `. */
export class SlsRenderError extends Error {
  readonly code = 'SLS_RENDER_ERROR';
}

export interface SlsRenderer {
  render(file: SlsFile, ctx: SlsRenderContext): Promise<unknown>;
  /** A Jinja template (file.managed / cmd.script `template: jinja`) rendered to text. */
  template(path: string, name: string, ctx: SlsRenderContext & { context?: Record<string, unknown> }): Promise<string>;
}

/** The renderer pipeline (`#!` line, default `jinja|yaml`). */
export class PipelineSlsRenderer implements SlsRenderer {
  constructor(
    private readonly opts: Record<string, unknown>,
    private readonly caller?: SaltCaller,
    private readonly defaultPipe?: string,
  ) {}

  async render(file: SlsFile, ctx: SlsRenderContext): Promise<unknown> {
    try {
      return await renderFile({
        text: file.text,
        path: file.path,
        name: file.source,
        sls: ctx.sls,
        saltenv: ctx.saltenv,
        roots: ctx.roots,
        context: { grains: ctx.grains, pillar: ctx.pillar, opts: this.opts },
        caller: this.caller,
        defaultPipe: this.defaultPipe,
      });
    } catch (err) {
      if (err instanceof RenderError) throw new SlsRenderError(err.message, { cause: err });
      throw err;
    }
  }

  async template(path: string, name: string, ctx: SlsRenderContext & { context?: Record<string, unknown> }): Promise<string> {
    return renderTemplate({
      path,
      name,
      sls: '',
      saltenv: ctx.saltenv,
      roots: ctx.roots,
      context: { grains: ctx.grains, pillar: ctx.pillar, opts: this.opts, ...(ctx.context ?? {}) },
      caller: this.caller,
    });
  }
}
