// schema.ts: values.schema.json validation with the error texts and order of xeipuuv/gojsonschema (what Helm v3
// uses): JSON Schema draft 4/6/7 keywords — type, enum, const, properties, patternProperties,
// additionalProperties, required, propertyNames, dependencies, items/additionalItems, contains, min/max*,
// multipleOf, pattern, format (formats.ts), allOf/anyOf/oneOf/not, if/then/else, local $ref (`#/definitions/…`,
// `#/$defs/…`). Go: gojsonschema validation.go, locales.go.
import { formatFloat, isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { marshalJSON } from '../funcs/index.js';
import { isFormat } from './formats.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface SubSchema {
  pass?: boolean; // true/false schema
  ref?: string;
  types: string[];
  properties: [string, SubSchema][];
  patternProperties: [RegExp, SubSchema][];
  additionalProperties?: boolean | SubSchema;
  required: string[];
  propertyNames?: SubSchema;
  dependencies: Map<string, string[] | SubSchema>;
  items?: SubSchema | SubSchema[];
  additionalItems?: boolean | SubSchema;
  contains?: SubSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems: boolean;
  minProperties?: number;
  maxProperties?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  patternSource?: string;
  multipleOf?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  format?: string;
  constJSON?: string;
  enumJSON: string[];
  allOf: SubSchema[];
  anyOf: SubSchema[];
  oneOf: SubSchema[];
  not?: SubSchema;
  if?: SubSchema;
  then?: SubSchema;
  else?: SubSchema;
}

/** SchemaError is a schema that cannot be used (bad JSON or an invalid keyword). */
export class SchemaError extends Error {}

function canonical(v: Json | GoValue): string {
  return marshalJSON(v as GoValue, { escapeHTML: true });
}

function isObj(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Compiler {
  constructor(private readonly root: Json) {}

  compile(node: Json): SubSchema {
    const s: SubSchema = { types: [], properties: [], patternProperties: [], required: [], dependencies: new Map(), uniqueItems: false, enumJSON: [], allOf: [], anyOf: [], oneOf: [] };
    if (typeof node === 'boolean') {
      s.pass = node;
      return s;
    }
    if (!isObj(node)) throw new SchemaError('Invalid JSON');
    if (typeof node.$ref === 'string') s.ref = node.$ref;
    const t = node.type;
    if (typeof t === 'string') s.types = [t];
    else if (Array.isArray(t)) s.types = t.filter((x): x is string => typeof x === 'string');
    if (isObj(node.properties)) for (const [k, v] of Object.entries(node.properties)) s.properties.push([k, this.compile(v)]);
    if (isObj(node.patternProperties)) for (const [k, v] of Object.entries(node.patternProperties)) s.patternProperties.push([new RegExp(k, 'u'), this.compile(v)]);
    if (typeof node.additionalProperties === 'boolean') s.additionalProperties = node.additionalProperties;
    else if (isObj(node.additionalProperties)) s.additionalProperties = this.compile(node.additionalProperties);
    if (Array.isArray(node.required)) s.required = node.required.filter((x): x is string => typeof x === 'string');
    if (node.propertyNames !== undefined) s.propertyNames = this.compile(node.propertyNames);
    if (isObj(node.dependencies)) {
      for (const [k, v] of Object.entries(node.dependencies)) {
        s.dependencies.set(k, Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : this.compile(v));
      }
    }
    if (Array.isArray(node.items)) s.items = node.items.map((i) => this.compile(i));
    else if (node.items !== undefined) s.items = this.compile(node.items);
    if (typeof node.additionalItems === 'boolean') s.additionalItems = node.additionalItems;
    else if (isObj(node.additionalItems)) s.additionalItems = this.compile(node.additionalItems);
    if (node.contains !== undefined) s.contains = this.compile(node.contains);
    const num = (k: string) => (typeof node[k] === 'number' ? (node[k] as number) : undefined);
    s.minItems = num('minItems');
    s.maxItems = num('maxItems');
    s.uniqueItems = node.uniqueItems === true;
    s.minProperties = num('minProperties');
    s.maxProperties = num('maxProperties');
    s.minLength = num('minLength');
    s.maxLength = num('maxLength');
    if (typeof node.pattern === 'string') {
      s.patternSource = node.pattern;
      s.pattern = new RegExp(node.pattern, 'u');
    }
    s.multipleOf = num('multipleOf');
    s.maximum = num('maximum');
    s.minimum = num('minimum');
    if (node.exclusiveMaximum === true) [s.exclusiveMaximum, s.maximum] = [s.maximum, undefined];
    else s.exclusiveMaximum = num('exclusiveMaximum');
    if (node.exclusiveMinimum === true) [s.exclusiveMinimum, s.minimum] = [s.minimum, undefined];
    else s.exclusiveMinimum = num('exclusiveMinimum');
    if (typeof node.format === 'string') s.format = node.format;
    if ('const' in node) s.constJSON = canonical(node.const);
    if (Array.isArray(node.enum)) s.enumJSON = node.enum.map(canonical);
    const list = (k: string) => (Array.isArray(node[k]) ? (node[k] as Json[]).map((x) => this.compile(x)) : []);
    s.allOf = list('allOf');
    s.anyOf = list('anyOf');
    s.oneOf = list('oneOf');
    if (node.not !== undefined) s.not = this.compile(node.not);
    if (node.if !== undefined) s.if = this.compile(node.if);
    if (node.then !== undefined) s.then = this.compile(node.then);
    if (node.else !== undefined) s.else = this.compile(node.else);
    return s;
  }

  private refs = new Map<string, SubSchema>();

  resolve(ref: string): SubSchema {
    const hit = this.refs.get(ref);
    if (hit) return hit;
    if (!ref.startsWith('#')) throw new SchemaError(`unsupported $ref ${JSON.stringify(ref)}: only local references are resolved`);
    let cur: Json | undefined = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      cur = Array.isArray(cur) ? cur[Number(key)] : isObj(cur) ? cur[key] : undefined;
    }
    if (cur === undefined) throw new SchemaError(`Object has no key '${ref.slice(2)}'`);
    const s = this.compile(cur);
    this.refs.set(ref, s);
    return s;
  }
}

interface ResultError {
  context: string[];
  description: string;
}

class Result {
  errors: ResultError[] = [];
  score = 0;
  add(context: string[], description: string): void {
    this.errors.push({ context, description });
    this.score -= 2;
  }
  merge(o: Result): void {
    this.errors.push(...o.errors);
    this.score += o.score;
  }
  valid(): boolean {
    return this.errors.length === 0;
  }
}

const fieldOf = (ctx: string[]) => (ctx.length === 0 ? '(root)' : ctx.join('.'));
const bigFloat = (n: number) => formatFloat(n, 'g', -1, 64);

class Validator {
  constructor(private readonly c: Compiler) {}

  sub(s: SubSchema, node: GoValue, ctx: string[]): Result {
    const r = new Result();
    this.recursive(s, node, r, ctx);
    return r;
  }

  recursive(s: SubSchema, node: GoValue, r: Result, ctx: string[]): void {
    if (s.pass !== undefined) {
      if (!s.pass) r.add(ctx, 'False always fails validation');
      return;
    }
    if (s.ref !== undefined) {
      this.recursive(this.c.resolve(s.ref), node, r, ctx);
      return;
    }
    const typed = s.types.length > 0;
    const expected = s.types.length > 1 ? `[${s.types.join(',')}]` : s.types[0];
    const bad = (given: string) => r.add(ctx, `Invalid type. Expected: ${expected}, given: ${given}`);
    if (node === null || node === undefined) {
      if (typed && !s.types.includes('null')) return bad('null');
      this.schema(s, null, r, ctx);
      this.common(s, null, r, ctx);
    } else if (typeof node === 'number' || typeof node === 'bigint') {
      const isInt = typeof node === 'bigint' || Number.isInteger(node);
      if (typed && !(s.types.includes('number') || (isInt && s.types.includes('integer')))) return bad(isInt ? 'integer' : 'number');
      this.schema(s, node, r, ctx);
      this.number(s, Number(node), r, ctx);
      this.common(s, node, r, ctx);
    } else if (Array.isArray(node)) {
      if (typed && !s.types.includes('array')) return bad('array');
      this.schema(s, node, r, ctx);
      this.array(s, node, r, ctx);
      this.common(s, node, r, ctx);
    } else if (isGoMap(node)) {
      if (typed && !s.types.includes('object')) return bad('object');
      this.schema(s, node, r, ctx);
      this.object(s, node, r, ctx);
      this.common(s, node, r, ctx);
      for (const [name, ps] of s.properties) {
        if (Object.prototype.hasOwnProperty.call(node, name)) this.recursive(ps, node[name], r, [...ctx, name]);
      }
    } else if (typeof node === 'boolean') {
      if (typed && !s.types.includes('boolean')) return bad('boolean');
      this.schema(s, node, r, ctx);
      this.common(s, node, r, ctx);
    } else if (typeof node === 'string') {
      if (typed && !s.types.includes('string')) return bad('string');
      this.schema(s, node, r, ctx);
      this.common(s, node, r, ctx);
      this.string(s, node, r, ctx);
    }
    r.score++;
  }

  schema(s: SubSchema, node: GoValue, r: Result, ctx: string[]): void {
    if (s.anyOf.length > 0) {
      let ok = false;
      let best: Result | undefined;
      for (const a of s.anyOf) {
        if (ok) break;
        const vr = this.sub(a, node, ctx);
        ok = vr.valid();
        if (!ok && (best === undefined || vr.score > best.score)) best = vr;
      }
      if (!ok) {
        r.add(ctx, 'Must validate at least one schema (anyOf)');
        if (best) r.merge(best);
      }
    }
    if (s.oneOf.length > 0) {
      let n = 0;
      let best: Result | undefined;
      for (const o of s.oneOf) {
        const vr = this.sub(o, node, ctx);
        if (vr.valid()) n++;
        else if (n === 0 && (best === undefined || vr.score > best.score)) best = vr;
      }
      if (n !== 1) {
        r.add(ctx, 'Must validate one and only one schema (oneOf)');
        if (n === 0 && best) r.merge(best);
      }
    }
    if (s.allOf.length > 0) {
      let n = 0;
      for (const a of s.allOf) {
        const vr = this.sub(a, node, ctx);
        if (vr.valid()) n++;
        r.merge(vr);
      }
      if (n !== s.allOf.length) r.add(ctx, 'Must validate all the schemas (allOf)');
    }
    if (s.not !== undefined && this.sub(s.not, node, ctx).valid()) r.add(ctx, 'Must not validate the schema (not)');
    if (s.dependencies.size > 0 && isGoMap(node)) {
      for (const key of Object.keys(node)) {
        const dep = s.dependencies.get(key);
        if (dep === undefined) continue;
        if (Array.isArray(dep)) {
          for (const d of dep) if (!Object.prototype.hasOwnProperty.call(node, d)) r.add(ctx, `Has a dependency on ${d}`);
        } else this.recursive(dep, node, r, ctx);
      }
    }
    if (s.if !== undefined) {
      const vi = this.sub(s.if, node, ctx);
      if (s.then !== undefined && vi.valid()) {
        const vt = this.sub(s.then, node, ctx);
        if (!vt.valid()) {
          r.add(ctx, 'Must validate "then" as "if" was valid');
          r.merge(vt);
        }
      }
      if (s.else !== undefined && !vi.valid()) {
        const ve = this.sub(s.else, node, ctx);
        if (!ve.valid()) {
          r.add(ctx, 'Must validate "else" as "if" was not valid');
          r.merge(ve);
        }
      }
    }
    r.score++;
  }

  common(s: SubSchema, node: GoValue, r: Result, ctx: string[]): void {
    if (s.constJSON !== undefined || s.enumJSON.length > 0) {
      const v = canonical(toFloatJSON(node));
      if (s.constJSON !== undefined && v !== s.constJSON) r.add(ctx, `${fieldOf(ctx)} does not match: ${s.constJSON}`);
      if (s.enumJSON.length > 0 && !s.enumJSON.includes(v)) r.add(ctx, `${fieldOf(ctx)} must be one of the following: ${s.enumJSON.join(', ')}`);
    }
    r.score++;
  }

  array(s: SubSchema, v: GoValue[], r: Result, ctx: string[]): void {
    const n = v.length;
    if (s.items !== undefined && !Array.isArray(s.items)) {
      for (let i = 0; i < n; i++) r.merge(this.sub(s.items, v[i], [...ctx, String(i)]));
    } else if (Array.isArray(s.items) && s.items.length > 0) {
      const nb = s.items.length;
      for (let i = 0; i !== nb && i !== n; i++) r.merge(this.sub(s.items[i], v[i], [...ctx, String(i)]));
      if (nb < n) {
        if (s.additionalItems === false) r.add(ctx, 'No additional items allowed on array');
        else if (typeof s.additionalItems === 'object') for (let i = nb; i !== n; i++) r.merge(this.sub(s.additionalItems, v[i], [...ctx, String(i)]));
      }
    }
    if (s.minItems !== undefined && n < s.minItems) r.add(ctx, `Array must have at least ${s.minItems} items`);
    if (s.maxItems !== undefined && n > s.maxItems) r.add(ctx, `Array must have at most ${s.maxItems} items`);
    if (s.uniqueItems) {
      const seen = new Map<string, number>();
      v.forEach((e, j) => {
        const k = canonical(toFloatJSON(e));
        const i = seen.get(k);
        if (i !== undefined) r.add(ctx, `array items[${i},${j}] must be unique`);
        seen.set(k, j);
      });
    }
    if (s.contains !== undefined) {
      let ok = false;
      let best: Result | undefined;
      for (let i = 0; i < n; i++) {
        const vr = this.sub(s.contains, v[i], [...ctx, String(i)]);
        if (vr.valid()) {
          ok = true;
          break;
        }
        if (best === undefined || vr.score > best.score) best = vr;
      }
      if (!ok) {
        r.add(ctx, 'At least one of the items must match');
        if (best) r.merge(best);
      }
    }
    r.score++;
  }

  object(s: SubSchema, v: GoMap, r: Result, ctx: string[]): void {
    const keys = Object.keys(v);
    if (s.minProperties !== undefined && keys.length < s.minProperties) r.add(ctx, `Must have at least ${s.minProperties} properties`);
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) r.add(ctx, `Must have at most ${s.maxProperties} properties`);
    for (const req of s.required) {
      if (Object.prototype.hasOwnProperty.call(v, req)) r.score++;
      else r.add(ctx, `${req} is required`);
    }
    for (const pk of keys) {
      const found = s.properties.some(([n]) => n === pk);
      let pp = false;
      for (const [re, ps] of s.patternProperties) {
        if (re.test(pk)) {
          pp = true;
          r.merge(this.sub(ps, v[pk], [...ctx, pk]));
        }
      }
      if (pp) r.score++;
      if (!found && !pp) {
        if (s.additionalProperties === false) r.add(ctx, `Additional property ${pk} is not allowed`);
        else if (typeof s.additionalProperties === 'object') r.merge(this.sub(s.additionalProperties, v[pk], [...ctx, pk]));
      }
    }
    if (s.propertyNames !== undefined) {
      for (const pk of keys) {
        const vr = this.sub(s.propertyNames, pk, ctx);
        if (!vr.valid()) {
          r.add(ctx, `Property name of "${pk}" does not match`);
          r.merge(vr);
        }
      }
    }
    r.score++;
  }

  string(s: SubSchema, v: string, r: Result, ctx: string[]): void {
    const len = [...v].length;
    if (s.minLength !== undefined && len < s.minLength) r.add(ctx, `String length must be greater than or equal to ${s.minLength}`);
    if (s.maxLength !== undefined && len > s.maxLength) r.add(ctx, `String length must be less than or equal to ${s.maxLength}`);
    if (s.pattern !== undefined && !s.pattern.test(v)) r.add(ctx, `Does not match pattern '${s.patternSource}'`);
    // gojsonschema v1.2.0 (Helm's) checks format here for strings and at the end of validateNumber for numbers.
    if (s.format !== undefined && !isFormat(s.format, v)) r.add(ctx, `Does not match format '${s.format}'`);
    r.score++;
  }

  number(s: SubSchema, n: number, r: Result, ctx: string[]): void {
    if (s.multipleOf !== undefined) {
      const q = n / s.multipleOf;
      if (!Number.isInteger(Number(q.toPrecision(15)))) r.add(ctx, `Must be a multiple of ${bigFloat(s.multipleOf)}`);
    }
    if (s.maximum !== undefined && n > s.maximum) r.add(ctx, `Must be less than or equal to ${bigFloat(s.maximum)}`);
    if (s.exclusiveMaximum !== undefined && n >= s.exclusiveMaximum) r.add(ctx, `Must be less than ${bigFloat(s.exclusiveMaximum)}`);
    if (s.minimum !== undefined && n < s.minimum) r.add(ctx, `Must be greater than or equal to ${bigFloat(s.minimum)}`);
    if (s.exclusiveMinimum !== undefined && n <= s.exclusiveMinimum) r.add(ctx, `Must be greater than ${bigFloat(s.exclusiveMinimum)}`);
    // A number never matches a known format in gojsonschema v1.2.0 (its checkers want strings).
    if (s.format !== undefined && !isFormat(s.format, n)) r.add(ctx, `Does not match format '${s.format}'`);
    r.score++;
  }
}

/** toFloatJSON turns int64 values into float64, as the JSON round trip in Helm and gojsonschema does. */
function toFloatJSON(v: GoValue): GoValue {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toFloatJSON);
  if (isGoMap(v)) {
    const m = Object.create(null) as GoMap;
    for (const k of Object.keys(v)) m[k] = toFloatJSON(v[k]);
    return m;
  }
  return v;
}

/**
 * validateAgainstSingleSchema is chartutil.ValidateAgainstSingleSchema: "" when the values satisfy the schema,
 * otherwise gojsonschema's errors, one "- field: description\n" line each. Throws SchemaError for a bad schema.
 */
export function validateAgainstSingleSchema(values: GoMap, schemaText: string): string {
  let root: Json;
  try {
    root = JSON.parse(schemaText) as Json;
  } catch (e) {
    throw new SchemaError((e as Error).message);
  }
  const c = new Compiler(root);
  const s = c.compile(root);
  const v = new Validator(c);
  const r = v.sub(s, jsonValues(values), []);
  return r.errors.map((e) => `- ${fieldOf(e.context)}: ${e.description}\n`).join('');
}

/** jsonValues is the values as gojsonschema sees them after Helm's YAML → JSON round trip (nulls kept). */
function jsonValues(v: GoValue): GoValue {
  if (Array.isArray(v)) return v.map(jsonValues);
  if (isGoMap(v)) {
    const m = Object.create(null) as GoMap;
    for (const k of Object.keys(v)) m[k] = jsonValues(v[k]);
    return m;
  }
  return v === undefined ? null : v;
}
