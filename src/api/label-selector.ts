// Kubernetes label selectors: parsing the string form (`env=fv`, `tier notin (a,b)`, `!k`), validating the object
// form (matchLabels + matchExpressions), matching labels (compileLabelSelector: the one implementation of label
// semantics; Sveltos labelFilters are turned into selectors), with apimachinery's grammar, rules and error texts.
// Go: k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser, Requirement.Matches),
//     k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (ParseToLabelSelector, LabelSelectorAsSelector),
//     k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go (ValidateLabelSelector).
import type { LabelFilter } from './common-types.js';
import { childPath, indexPath, quoteValue, type Issue } from './issues.js';
import { isQualifiedName, isValidLabelValue } from './name-validation.js';

/** LabelSelectorOperator is the operator of one matchExpressions entry. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** LabelSelectorRequirement is one matchExpressions entry (metav1.LabelSelectorRequirement). */
export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

/** LabelSelector is metav1.LabelSelector: matchLabels AND matchExpressions. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** ParseSelectorResult is the outcome of parsing a selector string: a LabelSelector or apimachinery's error text. */
export type ParseSelectorResult = { ok: true; selector: LabelSelector } | { ok: false; error: string };

// ---- lexer (Go: selector.go Lexer) ----

type Token =
  | 'error'
  | 'eos'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'id'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const string2token: Record<string, Token> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string) => '=!(),><'.includes(ch);

interface ScannedItem {
  tok: Token;
  lit: string;
}

function lex(s: string): ScannedItem[] {
  const items: ScannedItem[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecialSymbol(s[pos])) {
      // Go: scanSpecialSymbol — the longest run of special symbols that is still a token.
      let buffer = '';
      let last: ScannedItem | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos])) {
        buffer += s[pos];
        const t = string2token[buffer];
        if (t) {
          last = { tok: t, lit: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    // Go: scanIDOrKeyword
    let buffer = '';
    while (pos < s.length && !isSpecialSymbol(s[pos]) && !isWhitespace(s[pos])) buffer += s[pos++];
    const t = string2token[buffer];
    items.push({ tok: t ?? 'id', lit: buffer });
  }
}

// ---- parser (Go: selector.go Parser) ----

type SelectionOp = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';
interface Requirement {
  key: string;
  op: SelectionOp;
  values: string[];
}

class SelectorSyntaxError extends Error {
  override readonly name = 'SelectorSyntaxError';
}

class Parser {
  private position = 0;
  constructor(private readonly items: ScannedItem[]) {}

  // In the Values context `in`/`notin` are ordinary identifiers (`x in (in)` is legal).
  private lookahead(values: boolean): ScannedItem {
    const it = this.items[this.position];
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  private consume(values: boolean): ScannedItem {
    const it = this.lookahead(values);
    this.position++;
    return it;
  }

  // <selector-syntax> ::= <requirement> | <requirement> "," <selector-syntax>
  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case 'id':
        case '!': {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          reqs.push(r);
          const next = this.consume(true);
          if (next.tok === 'eos') return reqs;
          if (next.tok === ',') {
            const after = this.lookahead(true);
            if (after.tok !== 'id' && after.tok !== '!') {
              throw new SelectorSyntaxError(`found '${after.lit}', expected: identifier after ','`);
            }
            continue;
          }
          throw new SelectorSyntaxError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case 'eos':
          return reqs;
        default:
          throw new SelectorSyntaxError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  // <requirement> ::= [!] KEY [ <set-based-restriction> | <exact-match-restriction> ]
  private parseRequirement(): Requirement {
    let { tok, lit } = this.consume(true);
    let op: SelectionOp | undefined;
    if (tok === '!') {
      op = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'id') throw new SelectorSyntaxError(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    if (keyErrs.length > 0) throw new SelectorSyntaxError(`<nil>: Invalid value: ${quoteValue(lit)}: ${keyErrs.join('; ')}`);
    const key = lit;
    const ahead = this.lookahead(true).tok;
    if ((ahead === 'eos' || ahead === ',') && op !== '!') op = 'exists';
    if (op === 'exists' || op === '!') return newRequirement(key, op, []);
    const opItem = this.consume(false);
    switch (opItem.tok) {
      case 'in':
        op = 'in';
        break;
      case 'notin':
        op = 'notin';
        break;
      case '=':
        op = '=';
        break;
      case '==':
        op = '==';
        break;
      case '!=':
        op = '!=';
        break;
      case '>':
        op = 'gt';
        break;
      case '<':
        op = 'lt';
        break;
      default:
        throw new SelectorSyntaxError(`found '${opItem.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, values);
  }

  // <value-set> ::= "(" <values> ")"
  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.tok !== '(') throw new SelectorSyntaxError(`found '${open.lit}' expected: '('`);
    const ahead = this.lookahead(true);
    if (ahead.tok === 'id' || ahead.tok === ',') {
      const s = this.parseIdentifiersList();
      const close = this.consume(true);
      if (close.tok !== ')') throw new SelectorSyntaxError(`found '${ahead.lit}', expected: ')'`);
      return s;
    }
    if (ahead.tok === ')') {
      this.consume(true);
      return [''];
    }
    throw new SelectorSyntaxError(`found '${ahead.lit}', expected: ',', ')' or identifier`);
  }

  // <values> ::= VALUE | VALUE "," <values>   (empty values allowed: "(,a,)")
  private parseIdentifiersList(): string[] {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'id') {
        s.add(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return [...s];
        throw new SelectorSyntaxError(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (s.size === 0) s.add('');
        const next = this.lookahead(true);
        if (next.tok === ')') {
          s.add('');
          return [...s];
        }
        if (next.tok === ',') {
          this.consume(true);
          s.add('');
        }
        continue;
      }
      throw new SelectorSyntaxError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  // <exact-match-restriction> ::= ["="|"=="|"!="] VALUE
  private parseExactValue(): string[] {
    const ahead = this.lookahead(true);
    if (ahead.tok === 'eos' || ahead.tok === ',') return [''];
    const { tok, lit } = this.consume(true);
    if (tok === 'id') return [lit];
    throw new SelectorSyntaxError(`found '${lit}', expected: identifier`);
  }
}

// Go: selector.go NewRequirement — values are a sorted set; every violation is reported (aggregate).
function newRequirement(key: string, op: SelectionOp, rawValues: string[]): Requirement {
  const values = [...new Set(rawValues)].sort();
  const errs: string[] = [];
  for (const m of isQualifiedName(key)) errs.push(`key: Invalid value: ${quoteValue(key)}: ${m}`);
  if ((op === '=' || op === '==' || op === '!=') && values.length !== 1) {
    errs.push(`values: Invalid value: ${quoteValue(values)}: exact-match compatibility requires one single value`);
  }
  if (op === 'gt' || op === 'lt') {
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v)) {
        errs.push(`values[${i}]: Invalid value: ${quoteValue(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      }
    });
  }
  values.forEach((v, i) => {
    const m = isValidLabelValue(v);
    if (m.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${quoteValue(v)}: ${m.join('; ')}`);
  });
  if (errs.length === 1) throw new SelectorSyntaxError(errs[0]);
  if (errs.length > 1) throw new SelectorSyntaxError(`[${errs.join(', ')}]`);
  return { key, op, values };
}

/**
 * parseLabelSelector turns a selector string (`env=fv`, `a==b`, `tier!=x`, `k in (a,b)`, `k notin (a)`, `k`, `!k`)
 * into a LabelSelector, with apimachinery's grammar and error texts. Go: helpers.go ParseToLabelSelector.
 * Deliberate difference: upstream rejects `!=` ("is not a valid label selector operator"); v1alpha1 Sveltos
 * matched such strings with labels.Parse, where `k!=v` means "label k absent or not v" — exactly NotIn [v] — so
 * Ripple converts `k!=v` to `{key: k, operator: NotIn, values: [v]}` and keeps the old objects working.
 */
export function parseLabelSelector(text: string): ParseSelectorResult {
  let reqs: Requirement[];
  try {
    reqs = new Parser(lex(text)).parse();
  } catch (e) {
    if (e instanceof SelectorSyntaxError) {
      return { ok: false, error: `couldn't parse the selector string ${JSON.stringify(text)}: ${e.message}` };
    }
    throw e;
  }
  // Go sorts requirements by key (parse → sort.Sort(ByKey)).
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const r of reqs) {
    switch (r.op) {
      case '=':
      case '==':
        matchLabels[r.key] = r.values[0];
        continue;
      case 'in':
        matchExpressions.push({ key: r.key, operator: 'In', values: r.values });
        continue;
      case 'notin':
      case '!=':
        matchExpressions.push({ key: r.key, operator: 'NotIn', values: r.values });
        continue;
      case 'exists':
        matchExpressions.push({ key: r.key, operator: 'Exists' });
        continue;
      case '!':
        matchExpressions.push({ key: r.key, operator: 'DoesNotExist' });
        continue;
      case 'gt':
      case 'lt':
        return { ok: false, error: `"${r.op}" isn't supported in label selectors` };
    }
  }
  // Go leaves empty maps/slices that serialize as omitted (omitempty); do the same.
  const selector: LabelSelector = {};
  if (Object.keys(matchLabels).length > 0) selector.matchLabels = matchLabels;
  if (matchExpressions.length > 0) selector.matchExpressions = matchExpressions;
  return { ok: true, selector };
}

/**
 * validateLabelSelector checks a LabelSelector object the way apimachinery does (keys are qualified names, values
 * valid label values, In/NotIn need values, Exists/DoesNotExist forbid them) and reports every problem with code
 * `invalidSelector`. Go: metav1validation.ValidateLabelSelector
 */
export function validateLabelSelector(selector: unknown, path: string): Issue[] {
  const issues: Issue[] = [];
  const bad = (p: string, message: string) => issues.push({ path: p, code: 'invalidSelector', message });
  if (selector === null || selector === undefined) return issues;
  if (typeof selector !== 'object' || Array.isArray(selector)) {
    bad(path, `Invalid value: ${quoteValue(selector)}: must be a label selector object (matchLabels, matchExpressions)`);
    return issues;
  }
  const sel = selector as Record<string, unknown>;
  const labelsPath = childPath(path, 'matchLabels');
  if (sel.matchLabels && typeof sel.matchLabels === 'object' && !Array.isArray(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels as Record<string, unknown>)) {
      const p = childPath(labelsPath, k);
      for (const m of isQualifiedName(k)) bad(p, `Invalid value: ${quoteValue(k)}: ${m}`);
      if (typeof v === 'string') for (const m of isValidLabelValue(v)) bad(p, `Invalid value: ${quoteValue(v)}: ${m}`);
    }
  }
  if (Array.isArray(sel.matchExpressions)) {
    sel.matchExpressions.forEach((raw, i) => {
      const p = indexPath(childPath(path, 'matchExpressions'), i);
      if (!raw || typeof raw !== 'object') return; // the schema check reports the type
      const e = raw as Record<string, unknown>;
      const values = Array.isArray(e.values) ? (e.values as unknown[]) : [];
      switch (e.operator) {
        case 'In':
        case 'NotIn':
          if (values.length === 0) bad(childPath(p, 'values'), "Required value: must be specified when `operator` is 'In' or 'NotIn'");
          break;
        case 'Exists':
        case 'DoesNotExist':
          if (values.length > 0) {
            bad(childPath(p, 'values'), "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
          }
          break;
        default:
          if (typeof e.operator === 'string') {
            bad(childPath(p, 'operator'), `Invalid value: ${quoteValue(e.operator)}: not a valid selector operator`);
          }
      }
      if (typeof e.key === 'string') for (const m of isQualifiedName(e.key)) bad(childPath(p, 'key'), `Invalid value: ${quoteValue(e.key)}: ${m}`);
      values.forEach((v, j) => {
        if (typeof v === 'string') {
          for (const m of isValidLabelValue(v)) bad(indexPath(childPath(p, 'values'), j), `Invalid value: ${quoteValue(v)}: ${m}`);
        }
      });
    });
  }
  return issues;
}

/** MatchOptions tunes matchesLabelSelector for API fields whose empty selector has a special meaning. */
export interface MatchOptions {
  /**
   * What an empty selector (`{}`, no matchLabels and no matchExpressions) selects. Kubernetes: everything
   * (the default). Sveltos' EventTrigger `sourceClusterSelector` documents that an empty selector matches no
   * cluster: pass `'nothing'` there.
   */
  empty?: 'everything' | 'nothing';
}

/** LabelRequirement is one requirement of a compiled selector: the key, the operator and (In/NotIn) its values. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: readonly string[];
}

/**
 * CompiledLabelSelector is a selector prepared once for matching many label sets (the one implementation of
 * Kubernetes label-matching semantics in Ripple). Go: selector.go internalSelector
 */
export class CompiledLabelSelector {
  /** requirements are ANDed; null means the selector selects nothing. */
  constructor(readonly requirements: readonly LabelRequirement[] | null) {}

  /**
   * matches reports whether labels satisfy every requirement: `In` (key present, value listed), `NotIn` (key absent
   * or value not listed), `Exists`, `DoesNotExist`. A null or undefined label value counts as absent; other
   * non-string values (possible only in unvalidated YAML) compare by their text.
   * Go: selector.go Requirement.Matches
   */
  matches(labels: Readonly<Record<string, unknown>> | null | undefined): boolean {
    const reqs = this.requirements;
    if (reqs === null) return false;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i];
      const v = labels !== null && labels !== undefined && Object.hasOwn(labels, r.key) ? labels[r.key] : undefined;
      const has = v !== undefined && v !== null;
      switch (r.operator) {
        case 'In':
          if (!has || !r.values.includes(typeof v === 'string' ? v : String(v))) return false;
          break;
        case 'NotIn':
          if (has && r.values.includes(typeof v === 'string' ? v : String(v))) return false;
          break;
        case 'Exists':
          if (!has) return false;
          break;
        case 'DoesNotExist':
          if (has) return false;
          break;
      }
    }
    return true;
  }
}

const SELECTS_NOTHING = new CompiledLabelSelector(null);
const SELECTS_EVERYTHING = new CompiledLabelSelector([]);

/**
 * compileLabelSelector prepares a selector for matching with Kubernetes semantics. A missing selector (null or
 * undefined) selects nothing (LabelSelectorAsSelector(nil) = Nothing); an empty one everything unless
 * `options.empty` is `'nothing'`. An invalid selector (unknown operator, In/NotIn without values, Exists/DoesNotExist
 * with values) selects nothing — validate selectors first to report why. Keys and values are not syntax-checked here.
 * Go: helpers.go LabelSelectorAsSelector
 */
export function compileLabelSelector(selector: LabelSelector | null | undefined, options: MatchOptions = {}): CompiledLabelSelector {
  if (selector === null || selector === undefined) return SELECTS_NOTHING;
  const reqs: LabelRequirement[] = [];
  const matchLabels = selector.matchLabels;
  if (matchLabels) {
    for (const key in matchLabels) {
      if (Object.hasOwn(matchLabels, key)) reqs.push({ key, operator: 'In', values: [String(matchLabels[key])] });
    }
  }
  for (const e of selector.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return SELECTS_NOTHING;
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return SELECTS_NOTHING;
        break;
      default:
        return SELECTS_NOTHING;
    }
    reqs.push({ key: e.key, operator: e.operator, values });
  }
  if (reqs.length === 0) return (options.empty ?? 'everything') === 'everything' ? SELECTS_EVERYTHING : SELECTS_NOTHING;
  return new CompiledLabelSelector(reqs);
}

/**
 * matchesLabelSelector reports whether labels satisfy a selector with Kubernetes semantics (see
 * compileLabelSelector for missing, empty and invalid selectors). To match one selector against many label sets,
 * compile it once with compileLabelSelector.
 * Go: helpers.go LabelSelectorAsSelector, selector.go Requirement.Matches
 */
export function matchesLabelSelector(
  selector: LabelSelector | null | undefined,
  labels: Readonly<Record<string, string>> | null | undefined,
  options: MatchOptions = {},
): boolean {
  return compileLabelSelector(selector, options).matches(labels);
}

/**
 * labelFiltersAsSelector turns Sveltos labelFilters (ANDed) into the equivalent LabelSelector: Equal → `k=v` (In),
 * Different → `k!=v` (NotIn: also true when k is absent), Has → Exists, DoesNotHave → DoesNotExist. A filter with
 * an unknown operation yields an invalid expression, so the selector selects nothing.
 * Go: sveltos-agent pkg/evaluation (labelFilter → labels.Parse string), sveltoscluster-manager calculateLabelSelector
 */
export function labelFiltersAsSelector(filters: readonly LabelFilter[] | null | undefined): LabelSelector {
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const f of filters ?? []) {
    const value = f.value ?? '';
    switch (f.operation) {
      case 'Equal':
        matchExpressions.push({ key: f.key, operator: 'In', values: [value] });
        break;
      case 'Different':
        matchExpressions.push({ key: f.key, operator: 'NotIn', values: [value] });
        break;
      case 'Has':
        matchExpressions.push({ key: f.key, operator: 'Exists' });
        break;
      case 'DoesNotHave':
        matchExpressions.push({ key: f.key, operator: 'DoesNotExist' });
        break;
      default:
        matchExpressions.push({ key: f.key, operator: String(f.operation) as LabelSelectorOperator });
    }
  }
  return matchExpressions.length > 0 ? { matchExpressions } : {};
}

/**
 * validateLabelFilters reports labelFilters entries that labels.Parse would reject (a key that is not a qualified
 * name, an Equal/Different value that is not a label value, an unknown operation), code `invalidSelector`.
 * validate() does not call it: Sveltos' API server admits such filters and the agent fails on them at run time;
 * the matcher reports them instead.
 */
export function validateLabelFilters(filters: unknown, path: string): Issue[] {
  const issues: Issue[] = [];
  if (!Array.isArray(filters)) return issues;
  filters.forEach((raw, i) => {
    const p = indexPath(path, i);
    const f = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const bad = (field: string, message: string) => issues.push({ path: childPath(p, field), code: 'invalidSelector', message });
    if (typeof f.key !== 'string') return bad('key', 'Required value');
    const keyErrs = isQualifiedName(f.key);
    if (keyErrs.length > 0) return bad('key', `Invalid value: ${quoteValue(f.key)}: ${keyErrs.join('; ')}`);
    switch (f.operation) {
      case 'Equal':
      case 'Different': {
        const value = typeof f.value === 'string' ? f.value : '';
        const valueErrs = isValidLabelValue(value);
        if (valueErrs.length > 0) bad('value', `Invalid value: ${quoteValue(value)}: ${valueErrs.join('; ')}`);
        return;
      }
      case 'Has':
      case 'DoesNotHave':
        return;
      default:
        bad('operation', `Unsupported value: ${quoteValue(f.operation)}: supported values: "Equal", "Different", "Has", "DoesNotHave"`);
    }
  });
  return issues;
}

/**
 * formatLabelSelector renders a selector in the string form kubectl prints (`a=b,k in (x,y),!z`; `<none>` when empty,
 * `<error>` when invalid). Requirements are sorted by key, values sorted. Go: helpers.go FormatLabelSelector
 */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  if (!selector) return '<none>';
  const parts: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push({ key: k, text: `${k}=${v}` });
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    switch (e.operator) {
      case 'In':
        parts.push({ key: e.key, text: `${e.key} in (${values})` });
        break;
      case 'NotIn':
        parts.push({ key: e.key, text: `${e.key} notin (${values})` });
        break;
      case 'Exists':
        parts.push({ key: e.key, text: e.key });
        break;
      case 'DoesNotExist':
        parts.push({ key: e.key, text: `!${e.key}` });
        break;
      default:
        return '<error>';
    }
  }
  if (parts.length === 0) return '<none>';
  // Stable sort by key, like Go's selector.Add (which sorts requirements ByKey).
  return parts
    .map((p, i) => ({ ...p, i }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
    .map((p) => p.text)
    .join(',');
}
