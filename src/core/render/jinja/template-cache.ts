/**
 * Compiled templates kept on disk, so that a short command (`salt-call --local state.apply`)
 * does not parse and compile the same SLS and map.jinja files with nunjucks on every start:
 * the JavaScript nunjucks generated for a template is stored under a key made of the template's
 * text, its name and a fingerprint of brine's Jinja code, and read back next time, in
 * `<compile cache>/jinja` (../disk-cache.ts: a folder only this user may write, since code is
 * read from there).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import nunjucks from 'nunjucks';
import { cacheEntry, readCacheEntry, renderCacheDir, writeCacheEntry } from '../disk-cache';

/* eslint-disable @typescript-eslint/no-explicit-any */
const nj = nunjucks as any;

let fingerprint: string | undefined;

/** A hash of brine's Jinja code and nunjucks' version: generated code changes when either does. */
function codeFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const h = createHash('sha256').update(String(nj.version ?? ''));
  for (const f of readdirSync(__dirname).sort()) if (/\.(js|ts)$/.test(f)) h.update(f).update(readFileSync(join(__dirname, f)));
  fingerprint = h.digest('hex');
  return fingerprint;
}

let installed = false;

/** Route the compilation of brine's templates (`isBrine(env)`) through the disk cache. */
export function installTemplateCache(isBrine: (env: any) => boolean): void {
  if (installed) return;
  installed = true;
  const Template = nj.Template;
  const compile = Template.prototype._compile;
  Template.prototype._compile = function (this: any) {
    const folder = this.tmplProps || !isBrine(this.env) ? null : renderCacheDir('jinja');
    if (!folder) return compile.call(this);
    const entry = cacheEntry(folder, [codeFingerprint(), String(this.path ?? ''), this.tmplStr], 'js');
    let source = readCacheEntry(entry);
    if (source === undefined) {
      source = nj.compiler.compile(this.tmplStr, this.env.asyncFilters, this.env.extensionsList, this.path, this.env.opts) as string;
      writeCacheEntry(entry, source);
    }
    this.tmplProps = new Function(source)(); // eslint-disable-line no-new-func
    return compile.call(this);
  };
}
