/**
 * Salt's template context for an SLS file (`salt.utils.templates.generate_sls_context`):
 * tplpath, tplfile, tpldir, tpldot, slspath, slsdotpath, slscolonpath, sls_path.
 */
export function slsContext(tmplpath: string | undefined, sls: string): Record<string, string> {
  const out: Record<string, string> = {};
  let slspath = sls.replace(/\./g, '/');
  if (tmplpath) {
    let template = tmplpath.replace(/\\/g, '/');
    if (!sls) template = template.slice(template.lastIndexOf('/') + 1);
    else if (template.endsWith(`${slspath}.sls`)) template = template.slice(-(4 + slspath.length));
    else if (template.endsWith(`${slspath}/init.sls`)) template = template.slice(-(9 + slspath.length));
    slspath = template.includes('/') ? template.slice(0, template.lastIndexOf('/')) : '';
    out.tplpath = tmplpath;
    out.tplfile = template;
    out.tpldir = slspath || '.';
    out.tpldot = slspath.replace(/\//g, '.');
  }
  out.slspath = slspath;
  out.slsdotpath = slspath.replace(/\//g, '.');
  out.slscolonpath = slspath.replace(/\//g, ':');
  out.sls_path = slspath.replace(/\//g, '_');
  return out;
}
