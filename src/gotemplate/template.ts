// template.ts: the Template API, a port of Go's text/template/template.go (New, Parse, Lookup, Clone, Funcs,
// Option, Delims, AddParseTree, Execute, ExecuteTemplate) plus parseCached, a bounded cache of parsed templates.
import { isGoFunc, type FuncMap, type GoFunc, type GoValue } from './value.js';
import { TemplateError } from './errors.js';
import { BudgetError, DEFAULT_EXEC_BUDGET, ExecError, State, type ExecBudget, type ExecTemplate } from './exec.js';
import { BUILTIN_NAMES } from './funcs.js';
import { MissingKeyAction, parseMissingKey, parseOption, type MissingKey } from './option.js';
import { isEmptyTree } from './node.js';
import { checkHTMLEscaping } from './html.js';
import { parse, ParseError, type Tree } from './parse.js';
import { isDigit, isLetter } from './utf8.js';
import { quote } from './strconv.js';

/** Escape selects plain text/template output or html/template's escaping of every printed value. */
export type Escape = 'text' | 'html';

/** TemplateOptions configure a new template set. */
export interface TemplateOptions {
  /** Functions callable from the template, besides the builtins (Go: Funcs). */
  funcs?: FuncMap;
  /** What a missing map key does (Go: Option("missingkey=…")); Go's default is 'default'. */
  missingKey?: MissingKey;
  /** 'html' approximates html/template (see html.ts); default 'text'. */
  escape?: Escape;
  /** Action delimiters (Go: Delims); default {{ and }}. */
  delims?: readonly [left: string, right: string];
}

/** Common holds the information shared by related templates. Go: template.go common. */
interface Common {
  tmpl: Map<string, Template>; // Map from name to defined templates.
  missingKey: MissingKeyAction;
  escape: Escape;
  parseFuncs: Record<string, GoFunc>;
  frozen: boolean;
}

/** Template is the representation of a parsed template (Go: text/template.Template), one of a set sharing definitions. */
export class Template implements ExecTemplate {
  private readonly _name: string;
  tree: Tree | null = null;
  private common: Common;
  private leftDelim = '';
  private rightDelim = '';

  /** The Template constructor is Go's New(name), with the options Sveltos sets applied. */
  constructor(name: string, options: TemplateOptions = {}) {
    this._name = name;
    this.common = {
      tmpl: new Map(),
      missingKey: MissingKeyAction.Invalid,
      escape: options.escape ?? 'text',
      parseFuncs: Object.create(null) as Record<string, GoFunc>,
      frozen: false,
    };
    if (options.missingKey !== undefined) {
      const mk = parseMissingKey(options.missingKey);
      if (mk === undefined) throw new TemplateError('invalid_option', `unrecognized option: missingkey=${options.missingKey}`);
      this.common.missingKey = mk;
    }
    if (options.delims) [this.leftDelim, this.rightDelim] = options.delims;
    if (options.funcs) this.funcs(options.funcs);
  }

  /** name returns the name of the template. */
  name(): string {
    return this._name;
  }

  get missingKey(): MissingKeyAction {
    return this.common.missingKey;
  }

  get htmlEscape(): boolean {
    return this.common.escape === 'html';
  }

  /** findFunc returns the template's function of that name (not the builtins). */
  findFunc(name: string): GoFunc | undefined {
    const f = this.common.parseFuncs[name];
    return f === undefined ? undefined : f;
  }

  lookupForExec(name: string): Template | undefined {
    return this.common.tmpl.get(name);
  }

  private checkMutable(): void {
    if (this.common.frozen) throw new TemplateError('frozen', `template: ${this._name}: a shared (cached) template cannot be modified; clone it first`);
  }

  /** freeze makes the template set read-only; parseCached freezes what it shares. */
  freeze(): this {
    this.common.frozen = true;
    return this;
  }

  /**
   * newTemplate allocates a new, undefined template associated with the given one and with the same delimiters.
   * The association, which is transitive, allows one template to invoke another with a {{template}} action.
   * Go: Template.New.
   */
  newTemplate(name: string): Template {
    this.checkMutable();
    const nt = Object.create(Template.prototype) as Template;
    Object.assign(nt, { _name: name, tree: null, common: this.common, leftDelim: this.leftDelim, rightDelim: this.rightDelim });
    return nt;
  }

  /**
   * clone returns a duplicate of the template, including all associated templates. The actual representation is
   * not copied, but the name space of associated templates is, so further calls to parse in the copy will add
   * templates to the copy but not to the original. The copy is never frozen.
   */
  clone(): Template {
    const common: Common = {
      tmpl: new Map(),
      missingKey: this.common.missingKey,
      escape: this.common.escape,
      parseFuncs: Object.assign(Object.create(null) as Record<string, GoFunc>, this.common.parseFuncs),
      frozen: false,
    };
    const nt = this.copy(common);
    for (const [k, v] of this.common.tmpl) {
      if (k === this._name) {
        common.tmpl.set(k, nt);
        continue;
      }
      common.tmpl.set(k, v.copy(common));
    }
    return nt;
  }

  private copy(common: Common): Template {
    const nt = Object.create(Template.prototype) as Template;
    Object.assign(nt, { _name: this._name, tree: this.tree, common, leftDelim: this.leftDelim, rightDelim: this.rightDelim });
    return nt;
  }

  /**
   * addParseTree associates the argument parse tree with the template t, giving it the specified name. If the
   * template has not been defined, this tree becomes its definition. If it has been defined and already has that
   * name, the existing definition is replaced; otherwise a new template is created, defined, and returned.
   */
  addParseTree(name: string, tree: Tree): Template {
    this.checkMutable();
    let nt: Template = this;
    if (name !== this._name) nt = this.newTemplate(name);
    // Even if nt == t, we need to install it in the common.tmpl map.
    if (this.associate(nt, tree) || nt.tree === null) nt.tree = tree;
    return nt;
  }

  /** associate installs the new template into the group of templates associated with t. */
  private associate(nt: Template, tree: Tree): boolean {
    const old = this.common.tmpl.get(nt._name);
    // If a template by that name exists, don't replace it with an empty template.
    if (old !== undefined && isEmptyTree(tree.root) && old.tree !== null) return false;
    this.common.tmpl.set(nt._name, nt);
    return true;
  }

  /** templates returns the defined templates associated with t. */
  templates(): Template[] {
    return [...this.common.tmpl.values()];
  }

  /** delims sets the action delimiters to the specified strings, to be used in subsequent calls to parse. */
  delims(left: string, right: string): this {
    this.checkMutable();
    this.leftDelim = left;
    this.rightDelim = right;
    return this;
  }

  /**
   * funcs adds the elements of the argument map to the template's function map. It must be called before the
   * template is parsed. Throws TemplateError('invalid_func') where Go would panic.
   */
  funcs(funcMap: FuncMap): this {
    this.checkMutable();
    for (const name of Object.keys(funcMap)) {
      if (!goodName(name)) throw new TemplateError('invalid_func', `function name ${quote(name)} is not a valid identifier`);
      const fn = funcMap[name];
      if (!isGoFunc(fn)) throw new TemplateError('invalid_func', `value for ${name} not a function`);
      this.common.parseFuncs[name] = fn;
    }
    return this;
  }

  /** option sets options for the template, Go style ("missingkey=zero"). Throws TemplateError('invalid_option'). */
  option(...opts: string[]): this {
    this.checkMutable();
    for (const opt of opts) {
      const r = parseOption(opt);
      if ('error' in r) throw new TemplateError('invalid_option', r.error);
      this.common.missingKey = r.missingKey;
    }
    return this;
  }

  /** lookup returns the template with the given name that is associated with t, or undefined. */
  lookup(name: string): Template | undefined {
    return this.common.tmpl.get(name);
  }

  /**
   * parse parses text as a template body for t. Named template definitions ({{define ...}} or {{block ...}}
   * statements) in text define additional templates associated with t and are removed from the definition of t
   * itself. Throws TemplateError('parse') with Go's message.
   */
  parse(text: string): this {
    this.checkMutable();
    let trees: Map<string, Tree>;
    try {
      trees = parse(this._name, text, this.leftDelim, this.rightDelim, [this.common.parseFuncs, BUILTIN_NAMES]);
    } catch (e) {
      if (e instanceof ParseError) throw new TemplateError('parse', e.message, { cause: e });
      if (e instanceof RangeError && /call stack/i.test(e.message)) {
        // Go: parse.go stops at maxStackDepth with this message; the JavaScript stack is shallower than Go's, so
        // actions nested deeply enough to exhaust it are refused the same way instead of escaping as a RangeError.
        throw new TemplateError('parse', `template: ${this._name}: max expression depth exceeded`, { cause: e });
      }
      throw e;
    }
    // Add the newly parsed trees, including the one for t, into our common structure.
    for (const [name, tree] of trees) this.addParseTree(name, tree);
    return this;
  }

  /** definedTemplates returns "; defined templates are: …" listing the defined templates, or "" when there are none. */
  definedTemplates(): string {
    const names: string[] = [];
    for (const [name, t] of this.common.tmpl) if (t.tree !== null && t.tree.root !== null) names.push(quote(name));
    return names.length === 0 ? '' : '; defined templates are: ' + names.join(', ');
  }

  /**
   * execute applies the parsed template to the data and returns the output. Throws TemplateError('exec') with Go's
   * message; partial output is discarded (as Sveltos discards it). The budget (DEFAULT_EXEC_BUDGET unless given)
   * bounds steps, output and, with a clock, time: beyond it the execution fails with TemplateError('budget').
   */
  execute(data: GoValue, budget?: Partial<ExecBudget>): string {
    // Go: reflect.ValueOf(nil) is the invalid value.
    const dot = data === null ? undefined : data;
    const state: State = new State(this, dot, budget ? { ...DEFAULT_EXEC_BUDGET, ...budget } : DEFAULT_EXEC_BUDGET);
    if (this.common.escape === 'html' && this.tree !== null && this.tree.root !== null) {
      const err = checkHTMLEscaping(this.tree, (name) => {
        const t = this.common.tmpl.get(name);
        return t === undefined ? undefined : t.tree;
      });
      if (err !== null) throw new TemplateError('exec', err);
    }
    try {
      const root = this.tree?.root;
      if (root === undefined || root === null) state.errorf(`${quote(this._name)} is an incomplete or empty template`);
      state.walk(dot, root);
    } catch (e) {
      if (e instanceof ExecError) throw new TemplateError('exec', e.message, { cause: e });
      if (e instanceof BudgetError) throw new TemplateError('budget', e.message, { cause: e });
      if (e instanceof RangeError && /call stack/i.test(e.message)) {
        // Nesting deep enough to exhaust the JavaScript stack before maxExecDepth: report it where it happened.
        const msg = state.formatError(`exceeded maximum template depth (${state.depth}): the JavaScript call stack is exhausted`);
        throw new TemplateError('exec', msg, { cause: e });
      }
      throw e;
    }
    return state.out;
  }

  /** executeTemplate applies the template associated with t that has the given name to the data. */
  executeTemplate(name: string, data: GoValue, budget?: Partial<ExecBudget>): string {
    const tmpl = this.lookup(name);
    if (tmpl === undefined) throw new TemplateError('no_template', `template: no template ${quote(name)} associated with template ${quote(this._name)}`);
    return tmpl.execute(data, budget);
  }
}

/** goodName reports whether the function name is a valid identifier. */
function goodName(name: string): boolean {
  if (name === '') return false;
  let i = 0;
  for (const ch of name) {
    const r = ch.codePointAt(0)!;
    if (r === 0x5f) {
      // ok
    } else if (i === 0 && !isLetter(r)) return false;
    else if (!isLetter(r) && !isDigit(r)) return false;
    i++;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// parseCached: a bounded LRU of parsed, frozen templates.

/** CACHE_LIMIT bounds the number of distinct template texts kept per function map. */
export const CACHE_LIMIT = 1024;

const noFuncs: FuncMap = Object.freeze({});
// Per function map: template text → (name and options → template). Keying the outer map by the caller's text string
// lets V8 reuse the string's cached hash, so a hit costs no more than a lookup for large templates too.
const caches = new WeakMap<FuncMap, Map<string, Map<string, Template>>>();

/**
 * parseCached returns a parsed, frozen Template for (name, text, options), parsing it only on first use. Entries
 * are kept per function map object (pass the same FuncMap object to share entries); texts are evicted least
 * recently used first. Throws TemplateError('parse') like Template.parse (errors are not cached).
 */
export function parseCached(name: string, text: string, options: TemplateOptions = {}): Template {
  const funcs = options.funcs ?? noFuncs;
  let cache = caches.get(funcs);
  if (cache === undefined) {
    cache = new Map();
    caches.set(funcs, cache);
  }
  let byMeta = cache.get(text);
  if (byMeta !== undefined) {
    // Refresh the text's recency.
    cache.delete(text);
    cache.set(text, byMeta);
  } else {
    byMeta = new Map();
    cache.set(text, byMeta);
    if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  }
  const d = options.delims;
  const meta = `${options.missingKey ?? 'default'}\u0000${options.escape ?? 'text'}\u0000${d ? d[0] + '\u0000' + d[1] : ''}\u0000${name}`;
  const hit = byMeta.get(meta);
  if (hit !== undefined) return hit;
  const t = new Template(name, options).parse(text).freeze();
  byMeta.set(meta, t);
  return t;
}
