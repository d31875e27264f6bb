/**
 * Salt's extra Jinja tags as nunjucks extensions: `{% do expr %}` (jinja2.ext.do),
 * `{% import_yaml 'f' as x %}` / `import_json` / `import_text` (the file is rendered as a template,
 * then loaded), and `{% load_yaml as x %}...{% endload %}` / `load_json` / `load_text`.
 */
import nunjucks from 'nunjucks';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;

const IMPORTS = ['import_yaml', 'import_json', 'import_text'];
const LOADS = ['load_yaml', 'load_json', 'load_text'];

function brineCall(tok: AnyNode, fn: string, args: AnyNode[], withEnv: boolean): AnyNode {
  // The class is the one nunjucks-compat.ts registers; found through the compiler by typename.
  const BrineCall = (nodes.FunCall as AnyNode).brineCallClass;
  return new BrineCall(tok.lineno, tok.colno, fn, args, withEnv);
}

export class SaltTagsExtension {
  readonly tags = ['do', ...IMPORTS, ...LOADS];

  parse(parser: AnyNode): AnyNode {
    const tok = parser.nextToken();
    const tag: string = tok.value;
    if (tag === 'do') {
      const expr = parser.parseExpression();
      parser.advanceAfterBlockEnd(tok.value);
      return new nodes.Output(tok.lineno, tok.colno, [brineCall(tok, 'brineDiscard', [expr], false)]);
    }
    const kind = tag.split('_')[1];
    if (IMPORTS.includes(tag)) {
      const source = parser.parseExpression();
      if (!parser.skipSymbol('as')) parser.fail(`expected 'as' in ${tag} tag`, tok.lineno, tok.colno);
      const target = parser.parsePrimary(true);
      parser.advanceAfterBlockEnd(tok.value);
      const value = brineCall(tok, 'brineImportData', [new nodes.Literal(tok.lineno, tok.colno, kind), source], true);
      return new nodes.Set(tok.lineno, tok.colno, [target], value);
    }
    if (!parser.skipSymbol('as')) parser.fail(`expected 'as' in ${tag} tag`, tok.lineno, tok.colno);
    const target = parser.parsePrimary(true);
    parser.advanceAfterBlockEnd(tok.value);
    const body = parser.parseUntilBlocks('endload');
    parser.advanceAfterBlockEnd();
    const capture = new nodes.Capture(tok.lineno, tok.colno, body);
    const value = brineCall(tok, 'brineLoadData', [new nodes.Literal(tok.lineno, tok.colno, kind), capture], false);
    return new nodes.Set(tok.lineno, tok.colno, [target], value);
  }
}
