// JSON value helpers shared by the schema modules: type tests, cloning, equality and Go's %v formatting of
// decoded JSON (needed because several apimachinery error messages embed values printed with fmt's %v).

/** JSONObject is a decoded JSON object. */
export type JSONObject = { [key: string]: unknown };

// Memos keyed by short-lived values (the members of stored objects) name the long-lived schema node they were checked
// under by a number: a WeakMap from value to number is one ephemeron table, where a WeakSet of schema nodes per value
// was one more table per stored value for every full garbage collection to mark and clear (tens of thousands at
// 100 clusters × 100 Services). A number holds nothing alive, so a changed CRD's old nodes are not kept either.
const identities = new WeakMap<object, number>();
let nextIdentity = 1;

/** identity returns a number naming o for as long as o lives (for long-lived objects such as schema nodes). */
export function identity(o: object): number {
  let id = identities.get(o);
  if (id === undefined) identities.set(o, (id = nextIdentity++));
  return id;
}

/** isObject tells whether v is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is JSONObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** setKey assigns obj[key] = value as an own property, also for "__proto__" (which plain assignment would not). */
export function setKey(obj: JSONObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** hasKey tells whether obj has key as an own property. */
export function hasKey(obj: JSONObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** cloneJSON deep-copies a decoded JSON value. */
export function cloneJSON<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneJSON) as T;
  if (isObject(v)) {
    const out: JSONObject = {};
    for (const k of Object.keys(v)) setKey(out, k, cloneJSON(v[k]));
    return out as T;
  }
  return v;
}

/** deepEqualJSON compares two decoded JSON values structurally (object key order is irrelevant). */
export function deepEqualJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualJSON(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!hasKey(b, k) || !deepEqualJSON(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** jsonTypeName names a JSON value's type the way Go's encoding/json does in UnmarshalTypeError messages. */
export function jsonTypeName(v: unknown): 'object' | 'array' | 'string' | 'number' | 'bool' | 'null' {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** formatGoNumber prints a JSON number like Go's %v does for the int64/float64 values apimachinery decodes. */
export function formatGoNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  // Go's %v for float64 is %g with the shortest representation: exponent when exp < -4 || exp >= 21.
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [m, e] = n.toExponential().split('e');
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '');
    return `${m}e${sign}${digits.padStart(2, '0')}`;
  }
  return String(n);
}

/** formatGo prints a decoded JSON value like Go's fmt %v: map[k:v] with sorted keys, [a b], <nil>. */
export function formatGo(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(formatGo).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${formatGo(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return formatGoNumber(v);
  return String(v);
}

/** goTypeOf names the Go dynamic type of a decoded JSON value, as reflect.TypeOf(...).String() prints it. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'interface {}';
  }
}

/** goQuote quotes a string like Go's %q / strconv.Quote for the printable ASCII and common escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\r':
        out += '\\r';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + '"';
}
