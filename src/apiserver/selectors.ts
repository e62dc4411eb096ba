// Label and field selectors: parsing with apimachinery's grammar and messages, and matching.
// Go: k8s.io/apimachinery/pkg/labels/selector.go, pkg/fields/selector.go
import { fieldErrorString } from './status.js';
import { isQualifiedName, isValidLabelValue } from './validation.js';
import type { FieldError } from './schema/index.js';

/** LabelOperator is the set of label selector operators. Go: selection.Operator */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** LabelRequirement is one parsed requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** LabelSelector is a parsed label selector: all requirements must hold. */
export interface LabelSelector {
  readonly requirements: LabelRequirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  /** empty is true when the selector selects everything. */
  readonly empty: boolean;
}

/** SelectorError is a selector that does not parse; the message is apimachinery's. */
export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}

// Lexer tokens. Go: labels.Token
type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
const STRING_TO_TOKEN: Record<string, Tok> = {
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
const isSpecial = (ch: string) => '=!(),><'.includes(ch) && ch !== '';

// Go: labels.Lexer.Lex
function lex(s: string): { tok: Tok; lit: string }[] {
  const items: { tok: Tok; lit: string }[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // Go: scanSpecialSymbol — longest operator made of special symbols.
      let buf = '';
      let last: { tok: Tok; lit: string } | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        pos++;
        const t = STRING_TO_TOKEN[buf];
        if (t) last = { tok: t, lit: buf };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) buf += s[pos++];
      const t = STRING_TO_TOKEN[buf];
      items.push({ tok: t ?? 'id', lit: buf });
    }
  }
}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** parseLabelSelector parses the labelSelector query parameter. Go: labels.Parse */
export function parseLabelSelector(selector: string): LabelSelector {
  const items = lex(selector);
  let position = 0;
  // In a value context, in/notin are identifiers.
  const look = (values: boolean) => {
    const it = items[position];
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id' as Tok, lit: it.lit } : it;
  };
  const consume = (values: boolean) => {
    const it = look(values);
    position++;
    return it;
  };
  const validateKey = (k: string) => {
    const errs = isQualifiedName(k);
    if (errs.length > 0) throw new SelectorError(fieldErrorString({ type: 'FieldValueInvalid', field: 'key', badValue: k, detail: errs.join('; ') }));
  };
  const requirement = (): LabelRequirement => {
    // <requirement> ::= [!] KEY [ <set-based-restriction> | <exact-match-restriction> ]
    let op: LabelOperator | undefined;
    let t = consume(true);
    if (t.tok === '!') {
      op = '!';
      t = consume(true);
    }
    if (t.tok !== 'id') throw new SelectorError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    validateKey(key);
    if (op === '!') return newRequirement(key, '!', []);
    const next = look(true).tok;
    if (next === 'eos' || next === ',') return newRequirement(key, 'exists', []);
    const o = consume(false);
    switch (o.tok) {
      case 'in':
        op = 'in';
        break;
      case '=':
        op = '=';
        break;
      case '==':
        op = '==';
        break;
      case '>':
        op = 'gt';
        break;
      case '<':
        op = 'lt';
        break;
      case 'notin':
        op = 'notin';
        break;
      case '!=':
        op = '!=';
        break;
      default:
        throw new SelectorError(`found '${o.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
    let values: Set<string>;
    if (op === 'in' || op === 'notin') values = parseValues();
    else values = parseExactValue();
    return newRequirement(key, op, [...values].sort());
  };
  const parseValues = (): Set<string> => {
    const t = consume(true);
    if (t.tok !== '(') throw new SelectorError(`found '${t.lit}' expected: '('`);
    const l = look(true);
    if (l.tok === 'id' || l.tok === ',') {
      const s = parseIdentifiersList();
      if (consume(true).tok !== ')') throw new SelectorError(`found '${l.lit}', expected: ')'`);
      return s;
    }
    if (l.tok === ')') {
      consume(true);
      return new Set(['']);
    }
    throw new SelectorError(`found '${l.lit}', expected: ',', ')' or identifier`);
  };
  const parseIdentifiersList = (): Set<string> => {
    const s = new Set<string>();
    for (;;) {
      const t = consume(true);
      if (t.tok === 'id') {
        s.add(t.lit);
        const t2 = look(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') return s;
        throw new SelectorError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (s.size === 0) s.add('');
        const t2 = look(true);
        if (t2.tok === ')') {
          s.add('');
          return s;
        }
        if (t2.tok === ',') {
          consume(true);
          s.add('');
        }
      } else throw new SelectorError(`found '${t.lit}', expected: ',', or identifier`);
    }
  };
  const parseExactValue = (): Set<string> => {
    const l = look(true);
    if (l.tok === 'eos' || l.tok === ',') return new Set(['']);
    const t = consume(true);
    if (t.tok === 'id') return new Set([t.lit]);
    throw new SelectorError(`found '${t.lit}', expected: identifier`);
  };

  const reqs: LabelRequirement[] = [];
  for (;;) {
    const t = look(true);
    if (t.tok === 'id' || t.tok === '!') {
      try {
        reqs.push(requirement());
      } catch (e) {
        if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const n = consume(true);
      if (n.tok === 'eos') break;
      if (n.tok === ',') {
        const n2 = look(true);
        if (n2.tok !== 'id' && n2.tok !== '!') throw new SelectorError(`found '${n2.lit}', expected: identifier after ','`);
        continue;
      }
      throw new SelectorError(`found '${n.lit}', expected: ',' or 'end of string'`);
    }
    if (t.tok === 'eos') break;
    throw new SelectorError(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return makeLabelSelector(reqs);
}

// Go: labels.NewRequirement — validates the values for the operator.
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  if ((operator === 'gt' || operator === 'lt') && values.some((v) => !/^[-+]?\d+$/.test(v))) {
    values.forEach((v, i) => {
      if (!/^[-+]?\d+$/.test(v)) errs.push({ type: 'FieldValueInvalid', field: `values[${i}]`, badValue: v, detail: "for 'Gt', 'Lt' operators, the value must be an integer" });
    });
  }
  values.forEach((v, i) => {
    const m = isValidLabelValue(v);
    if (m.length > 0) errs.push({ type: 'FieldValueInvalid', field: `values[${i}][${key}]`, badValue: v, detail: m.join('; ') });
  });
  if (errs.length === 1) throw new SelectorError(fieldErrorString(errs[0]));
  if (errs.length > 1) throw new SelectorError(`[${errs.map(fieldErrorString).join(', ')}]`);
  return { key, operator, values };
}

/** labelSelectorFromMatch converts a metav1.LabelSelector ({matchLabels, matchExpressions}) into a LabelSelector. */
export function labelSelectorFromMatch(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined): LabelSelector {
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push({ key: k, operator: '=', values: [v] });
  for (const e of sel?.matchExpressions ?? []) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as Record<string, LabelOperator>)[e.operator];
    if (!op) throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push({ key: e.key, operator: op, values: e.values ?? [] });
  }
  return makeLabelSelector(reqs);
}

function makeLabelSelector(reqs: LabelRequirement[]): LabelSelector {
  return {
    requirements: reqs,
    empty: reqs.length === 0,
    matches(labels) {
      for (const r of reqs) if (!requirementMatches(r, labels ?? {})) return false;
      return true;
    },
  };
}

// Go: labels.Requirement.Matches
function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(v);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[-+]?\d+$/.test(v)) return false;
      const lv = BigInt(v);
      const rv = BigInt(r.values[0]);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

/** FieldTerm is one `field=value` / `field!=value` term of a field selector. */
export interface FieldTerm {
  field: string;
  value: string;
  negated: boolean;
}

/** parseFieldSelector parses the fieldSelector query parameter into terms. Go: fields.ParseSelector */
export function parseFieldSelector(selector: string): FieldTerm[] {
  const terms: FieldTerm[] = [];
  const parts = splitTerms(selector).sort();
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    terms.push({ field: t.lhs, value: unescapeValue(t.rhs), negated: t.op === '!=' });
  }
  return terms;
}

// Go: fields.splitTerms — split on commas not preceded by an escaping backslash.
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let slash = false;
  for (let i = 0; i < s.length; i++) {
    if (slash) slash = false;
    else if (s[i] === '\\') slash = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// Go: fields.splitTerm — the first operator found scanning left to right, `!=` and `==` before `=`.
function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

// Go: fields.UnescapeValue
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fieldTermsMatch tells whether an object's selectable fields satisfy every term. */
export function fieldTermsMatch(terms: FieldTerm[], fields: Record<string, string>): boolean {
  for (const t of terms) {
    const v = fields[t.field] ?? '';
    if (t.negated ? v === t.value : v !== t.value) return false;
  }
  return true;
}
