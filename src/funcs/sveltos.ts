// sveltos.ts: the functions Sveltos adds on top of Sprig — libsveltos' eight overrides that swallow errors
// (lib/funcmap/funcmap.go), event-manager's map-based resource helpers (controllers/template_helper.go) and
// addon-controller's identifier-based ones (controllers/template_instantiation.go), with apimachinery's
// unstructured helpers re-implemented (SetNestedField's deep copy that panics on non-JSON values included).
import { formatValue, goTypeOf, isGoMap, type GoFunc, type GoMap, type GoValue } from '../gotemplate/index.js';
import { newGoMap } from './collections.js';
import { defineFunc, goError } from './define.js';
import { JSONError, marshalJSON, unmarshalJSON } from './json.js';
import { goTypeTag } from './reflect.js';
import { parseTomlDoc, toToml, TOMLError } from './toml.js';
import { parseYamlSigs, toYamlSigs, toYamlV3, YAMLError } from './yaml.js';

const trimNewline = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s);

function jsonKindName(v: GoValue): string {
  if (Array.isArray(v)) return 'array';
  if (isGoMap(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}

/** fromYamlMap is sigs.k8s.io/yaml.Unmarshal into map[string]interface{} with libsveltos' {"Error": …} fallback. */
function fromYamlMap(s: string): GoMap {
  const m = newGoMap();
  let v: GoValue;
  try {
    v = parseYamlSigs(s);
  } catch (e) {
    if (e instanceof YAMLError) {
      m.Error = e.message;
      return m;
    }
    throw e;
  }
  if (v === null) return m;
  if (!isGoMap(v)) {
    m.Error = `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(v)} into Go value of type map[string]interface {}`;
    return m;
  }
  return v;
}

function fromYamlArray(s: string): GoValue[] {
  let v: GoValue;
  try {
    v = parseYamlSigs(s);
  } catch (e) {
    if (e instanceof YAMLError) return [e.message];
    throw e;
  }
  if (v === null) return [];
  if (!Array.isArray(v)) {
    return [`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(v)} into Go value of type []interface {}`];
  }
  return v;
}

/** sveltosOverrides returns libsveltos' toYaml, fromYaml, fromYamlArray, toJson, fromJson, fromJsonArray, toToml, fromToml. */
export function sveltosOverrides(): GoFunc[] {
  return [
    defineFunc('toYaml', '(interface {}) string', (v: GoValue) => {
      try {
        return trimNewline(toYamlSigs(v));
      } catch (e) {
        if (e instanceof YAMLError) return '';
        throw e;
      }
    }),
    defineFunc('fromYaml', '(string) map[string]interface {}', fromYamlMap),
    defineFunc('fromYamlArray', '(string) []interface {}', fromYamlArray),
    defineFunc('toJson', '(interface {}) string', (v: GoValue) => {
      try {
        return marshalJSON(v, { escapeHTML: true });
      } catch (e) {
        if (e instanceof JSONError) return '';
        throw e;
      }
    }),
    defineFunc('fromJson', '(string) map[string]interface {}', (s: string) => {
      const r = unmarshalJSON(s, 'map[string]interface {}');
      if (r.error === undefined) return r.value;
      const m = newGoMap();
      m.Error = r.error;
      return m;
    }),
    defineFunc('fromJsonArray', '(string) []interface {}', (s: string) => {
      const r = unmarshalJSON(s, '[]interface {}');
      return r.error === undefined ? r.value : [r.error];
    }),
    defineFunc('toToml', '(interface {}) string', toToml),
    defineFunc('fromToml', '(string) map[string]interface {}', (s: string) => {
      try {
        return parseTomlDoc(s);
      } catch (e) {
        if (e instanceof TOMLError) {
          const m = newGoMap();
          m.Error = e.message;
          return m;
        }
        throw e;
      }
    }),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// apimachinery unstructured helpers. Go: k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/helpers.go

/** deepCopyJSONValue is runtime.DeepCopyJSONValue: JSON-shaped values only, a panic for anything else. */
export function deepCopyJSONValue(x: GoValue): GoValue {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'string':
    case 'boolean':
    case 'bigint':
    case 'number':
      return x;
  }
  if (Array.isArray(x) && (goTypeTag(x) ?? '[]interface {}') === '[]interface {}') return x.map(deepCopyJSONValue);
  if (isGoMap(x) && (goTypeTag(x) ?? 'map[string]interface {}') === 'map[string]interface {}') {
    const c = newGoMap();
    for (const k of Object.keys(x)) c[k] = deepCopyJSONValue(x[k]);
    return c;
  }
  throw goError(`cannot deep copy ${goTypeOf(x)}`);
}

const jsonPath = (fields: string[]) => '.' + fields.join('.');

function nestedFieldNoCopy(obj: GoMap, fields: string[]): { value: GoValue; found: boolean; error?: string } {
  let val: GoValue = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { value: null, found: false };
    if (!isGoMap(val) || (goTypeTag(val) ?? 'map[string]interface {}') !== 'map[string]interface {}') {
      return {
        value: null,
        found: false,
        error: `${jsonPath(fields.slice(0, i + 1))} accessor error: ${formatValue(val)} is of the type ${goTypeOf(val)}, expected map[string]interface{}`,
      };
    }
    if (!Object.hasOwn(val, fields[i])) return { value: null, found: false };
    val = (val as GoMap)[fields[i]];
  }
  return { value: val, found: true };
}

/** setNestedField is unstructured.SetNestedField: deep-copies the value, creates missing maps, fails on non-maps. */
function setNestedField(obj: GoMap, value: GoValue, fields: string[]): string | undefined {
  const v = deepCopyJSONValue(value);
  let m = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    const f = fields[i];
    if (Object.hasOwn(m, f)) {
      const next = m[f];
      if (!isGoMap(next) || (goTypeTag(next) ?? 'map[string]interface {}') !== 'map[string]interface {}') {
        return `value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`;
      }
      m = next;
    } else {
      const n = newGoMap();
      m[f] = n;
      m = n;
    }
  }
  m[fields[fields.length - 1]] = v;
  return undefined;
}

/** removeNestedField is unstructured.RemoveNestedField. */
function removeNestedField(obj: GoMap | null, fields: string[]): void {
  if (obj === null) return;
  let m = obj;
  for (const f of fields.slice(0, -1)) {
    const x = m[f];
    if (!isGoMap(x)) return;
    m = x;
  }
  delete m[fields[fields.length - 1]];
}

/** resetFields is Unstructured.SetManagedFields(nil), SetResourceVersion(""), SetUID("") — in place. */
export function resetFields(u: GoMap | null): GoMap | null {
  removeNestedField(u, ['metadata', 'managedFields']);
  removeNestedField(u, ['metadata', 'resourceVersion']);
  removeNestedField(u, ['metadata', 'uid']);
  return u;
}

function getField(u: GoMap | null, fields: string): GoValue {
  if (u === null) return '';
  const r = nestedFieldNoCopy(u, fields.split('.'));
  if (r.error !== undefined || !r.found) return '';
  return deepCopyJSONValue(r.value);
}

type Marshal = (u: GoMap) => string;

function marshalOrEmpty(marshal: (v: GoValue) => string): Marshal {
  return (u) => {
    try {
      return trimNewline(marshal(u));
    } catch (e) {
      if (e instanceof YAMLError || e instanceof JSONError) return '';
      throw e;
    }
  };
}

/** marshalYamlV3 is event-manager's yaml.v3 rendering of a resource (nil map → {}), trailing newline cut, "" on error. */
export const marshalYamlV3: Marshal = marshalOrEmpty(toYamlV3);
/** marshalSigsYaml is addon-controller's sigs.k8s.io/yaml rendering of a resource. */
export const marshalSigsYaml: Marshal = marshalOrEmpty(toYamlSigs);

function chainFuncs(): GoFunc[] {
  return [
    defineFunc('chainRemoveField', '(map[string]interface {}, string) map[string]interface {}', (u: GoMap | null, fields: string) => {
      removeNestedField(u, fields.split('.'));
      return u ?? newGoMap();
    }),
    defineFunc(
      'chainSetField',
      '(map[string]interface {}, string, interface {}) map[string]interface {}',
      (u: GoMap | null, fields: string, value: GoValue) => {
        if (u === null) throw goError('assignment to entry in nil map');
        // A failed set returns a nil map, which prints as map[].
        return setNestedField(u, value, fields.split('.')) === undefined ? u : newGoMap();
      },
    ),
  ];
}

/** eventResourceFuncs returns event-manager's getResource/copy/getField/removeField/setField (+ chain*) over maps. */
export function eventResourceFuncs(): GoFunc[] {
  const orEmpty = (u: GoMap | null) => u ?? newGoMap();
  return [
    defineFunc('getResource', '(map[string]interface {}) map[string]interface {}', (u: GoMap | null) => orEmpty(resetFields(u))),
    defineFunc('copy', '(map[string]interface {}) string', (u: GoMap | null) => marshalYamlV3(orEmpty(resetFields(u)))),
    defineFunc('getField', '(map[string]interface {}, string) interface {}', getField),
    defineFunc('removeField', '(map[string]interface {}, string) string', (u: GoMap | null, fields: string) => {
      removeNestedField(u, fields.split('.'));
      return marshalYamlV3(orEmpty(resetFields(u)));
    }),
    defineFunc('setField', '(map[string]interface {}, string, interface {}) string', (u: GoMap | null, fields: string, value: GoValue) => {
      if (u === null) throw goError('assignment to entry in nil map');
      if (setNestedField(u, value, fields.split('.')) !== undefined) return '';
      return marshalYamlV3(resetFields(u)!);
    }),
    ...chainFuncs(),
  ];
}

/** addonResourceFuncs returns addon-controller's identifier-based family, looking ids up in mgmtResources. */
export function addonResourceFuncs(mgmtResources: GoValue): GoFunc[] {
  const lookup = (id: string): GoMap | undefined => {
    if (!isGoMap(mgmtResources) || !Object.hasOwn(mgmtResources, id)) return undefined;
    const u = mgmtResources[id];
    return isGoMap(u) && (goTypeTag(u) ?? 'map[string]interface {}') === 'map[string]interface {}' ? u : undefined;
  };
  return [
    defineFunc('getResource', '(string) map[string]interface {}', (id: string) => {
      const u = lookup(id);
      return u ? resetFields(u) : newGoMap();
    }),
    defineFunc('copy', '(string) string', (id: string) => {
      const u = lookup(id);
      return u ? marshalSigsYaml(resetFields(u)!) : '';
    }),
    defineFunc('getField', '(string, string) interface {}', (id: string, fields: string) => {
      const u = lookup(id);
      return u ? getField(u, fields) : '';
    }),
    defineFunc('removeField', '(string, string) string', (id: string, fields: string) => {
      const u = lookup(id);
      if (!u) return '';
      removeNestedField(u, fields.split('.'));
      return marshalSigsYaml(resetFields(u)!);
    }),
    defineFunc('setField', '(string, string, interface {}) string', (id: string, fields: string, value: GoValue) => {
      const u = lookup(id);
      if (!u) return '';
      if (setNestedField(u, value, fields.split('.')) !== undefined) return '';
      return marshalSigsYaml(resetFields(u)!);
    }),
    ...chainFuncs(),
  ];
}
