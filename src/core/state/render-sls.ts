/**
 * How an SLS file's text becomes data. The state compiler only sees this interface; the
 * renderer pipeline (shebang, Jinja, YAML) plugs in here.
 */
import { loadYaml } from '../config/yaml11-load';
import type { SlsFile } from './sls-source';

export interface SlsRenderContext {
  saltenv: string;
  sls: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
}

/** A render failure; `message` is the text after Salt's `Rendering SLS 'env:sls' failed: `. */
export class SlsRenderError extends Error {
  readonly code = 'SLS_RENDER_ERROR';
}

export interface SlsRenderer {
  render(file: SlsFile, ctx: SlsRenderContext): Promise<unknown>;
}

/** Plain YAML (no templating): the fallback when no renderer pipeline is configured. */
export class YamlSlsRenderer implements SlsRenderer {
  async render(file: SlsFile): Promise<unknown> {
    try {
      return loadYaml(file.text, file.source);
    } catch (err) {
      throw new SlsRenderError((err as Error).message, { cause: err });
    }
  }
}
