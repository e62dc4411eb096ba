// validateCRD: CustomResourceDefinition validation as kube-apiserver 1.32 does it on create and update: names,
// scope, versions, subresources, printer columns, conversion, and the schemas (OpenAPI rules, structural-schema
// invariants and completeness, defaults that must prune to themselves and validate). Messages and field paths are
// apiextensions-apiserver's, including its quirk of reporting a schema shared by all versions under
// spec.validation (v1 → internal conversion hoists identical per-version fields).
// Go: apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/validation.go,
// complete.go, pkg/apiserver/schema/defaulting/validation.go. CEL rules (x-kubernetes-validations) are checked for
// shape only; their expressions are not compiled or evaluated.
import { RE2JS } from 're2js';
import { unknownPaths, validateValue } from './compile.js';
import { cloneJSON, deepEqualJSON, goQuote, hasKey, isObject, type JSONObject } from './json.js';
import type { FieldError, JSONSchemaProps } from './types.js';

// ---- small field.Error constructors (k8s.io/apimachinery/pkg/util/validation/field) ----
const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail, badValue: '' });
const invalid = (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail });
const forbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail, badValue: '' });
const notSupported = (field: string, badValue: unknown, values: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  badValue,
  detail: values.length > 0 ? `supported values: ${values.map(goQuote).join(', ')}` : '',
});
const duplicate = (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue, detail: '' });

const key = (path: string, k: string) => `${path}[${k}]`;
const at = (path: string, c: string) => `${path}.${c}`;
const idx = (path: string, i: number) => `${path}[${i}]`;

// ---- k8s.io/apimachinery/pkg/util/validation name rules ----
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) out += ' or ';
    out += `'${e}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

/** isDNS1035Label returns the apimachinery error strings for a DNS-1035 label (empty when valid). */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035.test(v)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        '[a-z]([-a-z0-9]*[a-z0-9])?',
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** isDNS1123Subdomain returns the apimachinery error strings for a DNS-1123 subdomain (empty when valid). */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*',
        'example.com',
      ),
    );
  }
  return errs;
}

// ---- tolerant accessors: the CRD has already been decoded against the CRD schema, but never trust shapes ----
const obj = (v: unknown): JSONObject => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => arr(v).map(str);

/** applyCRDDefaults returns a copy of a v1 CRD with the apiextensions/v1 defaults: names.singular, names.listKind, conversion.strategy None. */
export function applyCRDDefaults(crd: object): object {
  const out = (isObject(crd) ? cloneJSON(crd) : {}) as JSONObject;
  const spec = isObject(out.spec) ? out.spec : (out.spec = {});
  const names = isObject(spec.names) ? spec.names : (spec.names = {});
  const kind = str(names.kind);
  if (!names.singular && kind) names.singular = kind.toLowerCase();
  if (!names.listKind && kind) names.listKind = `${kind}List`;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  else if (!spec.conversion.strategy) spec.conversion.strategy = 'None';
  const webhook = isObject(spec.conversion) && isObject(spec.conversion.webhook) ? spec.conversion.webhook : undefined;
  const service = webhook && isObject(webhook.clientConfig) && isObject(webhook.clientConfig.service) ? webhook.clientConfig.service : undefined;
  if (service && service.port === undefined) service.port = 443;
  return out;
}

/**
 * crdStoredVersions computes status.storedVersions as the CRD strategy does: the storage version on create; on
 * update the old list plus the new storage version if it is not there yet.
 */
export function crdStoredVersions(crd: object, old?: object): string[] {
  const storage = arr(obj(obj(crd).spec).versions).map(obj).find((v) => v.storage === true);
  const name = storage ? str(storage.name) : '';
  if (!old) return name ? [name] : [];
  const prev = strs(obj(obj(old).status).storedVersions);
  return name && !prev.includes(name) ? [...prev, name] : prev;
}

// ---- the internal (hoisted) view of a v1 spec ----
interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: unknown;
  schema: unknown;
  subresources: unknown;
  columns: unknown;
  selectableFields: unknown;
  raw: JSONObject;
}

interface Hoisted {
  versions: Version[];
  validation: unknown;
  subresources: unknown;
  columns: unknown;
  selectableFields: unknown;
}

// Go: apis/apiextensions/v1/conversion.go Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_... — identical
// per-version schema/subresources/columns/selectableFields move to the top level (and so do their error paths).
function hoist(spec: JSONObject): Hoisted {
  const versions: Version[] = arr(spec.versions).map((x) => {
    const v = obj(x);
    return {
      name: str(v.name),
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      deprecationWarning: v.deprecationWarning,
      schema: v.schema,
      subresources: v.subresources,
      columns: v.additionalPrinterColumns,
      selectableFields: v.selectableFields,
      raw: v,
    };
  });
  const out: Hoisted = { versions, validation: undefined, subresources: undefined, columns: undefined, selectableFields: undefined };
  if (versions.length === 0) return out;
  const same = (f: (v: Version) => unknown) => versions.every((v) => deepEqualJSON(emptyToUndefined(f(v)), emptyToUndefined(f(versions[0]))));
  if (same((v) => v.schema)) {
    out.validation = versions[0].schema;
    for (const v of versions) v.schema = undefined;
  }
  if (same((v) => v.subresources)) {
    out.subresources = versions[0].subresources;
    for (const v of versions) v.subresources = undefined;
  }
  if (same((v) => v.columns)) {
    out.columns = versions[0].columns;
    for (const v of versions) v.columns = undefined;
  }
  if (same((v) => v.selectableFields)) {
    out.selectableFields = versions[0].selectableFields;
    for (const v of versions) v.selectableFields = undefined;
  }
  return out;
}

// Semantic.DeepEqual treats a nil slice and an empty slice alike.
const emptyToUndefined = (v: unknown) => (Array.isArray(v) && v.length === 0 ? undefined : (v ?? undefined));

const hasStatus = (sub: unknown) => isObject(sub) && hasKey(sub, 'status') && sub.status !== null;

/** validateCRD returns the field errors the apiserver reports for creating (or, with old, updating) a v1 CRD. */
export function validateCRD(crdIn: object, old?: object): FieldError[] {
  const crd = applyCRDDefaults(crdIn) as JSONObject;
  const meta = obj(crd.metadata);
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = str(spec.group);
  const errs: FieldError[] = [];

  // metadata.name must be <plural>.<group> (generic ObjectMeta rules are the server core's).
  const name = str(meta.name);
  if (name !== `${str(names.plural)}.${group}`) errs.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));

  errs.push(...validateSpec(spec));
  errs.push(...validateNames(obj(obj(crd.status).acceptedNames), 'status.acceptedNames'));

  if (old) {
    const oldSpec = obj(obj(old).spec);
    const oldNames = obj(oldSpec.names);
    const established = arr(obj(obj(old).status).conditions).some((c) => obj(c).type === 'Established' && obj(c).status === 'True');
    if (established) {
      if (str(spec.scope) !== str(oldSpec.scope)) errs.push(invalid('spec.scope', str(spec.scope), 'field is immutable'));
      if (str(names.kind) !== str(oldNames.kind)) errs.push(invalid('spec.names.kind', str(names.kind), 'field is immutable'));
    }
    if (group !== str(oldSpec.group)) errs.push(invalid('spec.group', group, 'field is immutable'));
    if (str(names.plural) !== str(oldNames.plural)) errs.push(invalid('spec.names.plural', str(names.plural), 'field is immutable'));
    errs.push(...validateStoredVersions(crdStoredVersions(crd, old), arr(spec.versions).map(obj), 'status.storedVersions'));
  }
  errs.push(...validateAPIApproval(group, obj(meta.annotations), old ? obj(obj(old).metadata).annotations : undefined));
  if (spec.preserveUnknownFields === true && !(old && obj(obj(old).spec).preserveUnknownFields === true)) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errs;
}

function validateStoredVersions(stored: string[], versions: JSONObject[], path: string): FieldError[] {
  if (stored.length === 0) return [invalid(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const n = str(v.name);
    if (v.storage === true && !remaining.has(n) && !stored.includes(n)) errs.push(invalid(path, stored, `must have the storage version ${n}`));
    remaining.delete(n);
  }
  for (const [v, i] of remaining) errs.push(invalid(idx(path, i), v, 'must appear in spec.versions'));
  return errs;
}

// Go: validation.go validateAPIApproval with apihelpers.GetAPIApprovalState.
function validateAPIApproval(group: string, annotations: JSONObject, oldAnnotations: unknown): FieldError[] {
  const protectedGroup = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const ann = 'api-approved.kubernetes.io';
  const state = (a: unknown): [string, string] => {
    const v = str(obj(a)[ann]);
    if (v === '') return ['missing', `protected groups must have approval annotation ${goQuote(ann)}, see https://github.com/kubernetes/enhancements/pull/1111`];
    if (v.startsWith('unapproved')) return ['bypassed', ''];
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/\s]+/.test(v)) return ['approved', ''];
    return ['invalid', `protected groups must have approval annotation ${goQuote(ann)} with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`];
  };
  const [s, reason] = state(annotations);
  if (oldAnnotations !== undefined && state(oldAnnotations)[0] === s) return [];
  const path = key('metadata.annotations', ann);
  if (s === 'missing') return [required(path, reason)];
  if (s === 'invalid') return [invalid(path, str(annotations[ann]), reason)];
  return [];
}

// Go: validation.go validateCustomResourceDefinitionSpec.
function validateSpec(spec: JSONObject): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec.group);
  if (group === '') errs.push(required('spec.group'));
  else if (isDNS1123Subdomain(group).length > 0) errs.push(invalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));

  const scope = str(spec.scope);
  if (scope === '') errs.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const h = hoist(spec);
  const schemaOf = (s: unknown) => (isObject(s) && isObject(s.openAPIV3Schema) ? (s.openAPIV3Schema as JSONSchemaProps) : undefined);
  if (schemaOf(h.validation) === undefined) {
    h.versions.forEach((v, i) => {
      if (schemaOf(v.schema) === undefined) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  }
  const anyStatus = hasStatus(h.subresources) || h.versions.some((v) => hasStatus(v.subresources));

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  h.versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = isDNS1035Label(v.name);
    if (nameErrs.length > 0) errs.push(invalid(at(path, 'name'), v.name, nameErrs.join(',')));
    const statusEnabled = hasStatus(h.versions.some((x) => x.subresources !== undefined) ? v.subresources : h.subresources);
    errs.push(...validateVersion(v, path, statusEnabled));
  });

  if (!unique) errs.push(invalid('spec.versions', spec.versions, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalid('spec.versions', spec.versions, 'must have exactly one version marked as storage version'));

  const names = obj(spec.names);
  if (str(names.plural) === '') errs.push(required('spec.names.plural'));
  if (str(names.singular) === '') errs.push(required('spec.names.singular'));
  if (str(names.kind) === '') errs.push(required('spec.names.kind'));
  if (str(names.listKind) === '') errs.push(required('spec.names.listKind'));
  errs.push(...validateNames(names, 'spec.names'));

  if (h.validation !== undefined) errs.push(...validateValidation(h.validation, anyStatus, 'spec.validation'));
  errs.push(...validateSubresources(h.subresources, 'spec.subresources'));
  arr(h.columns).forEach((c, i) => errs.push(...validateColumn(obj(c), `spec.additionalPrinterColumns[${i}]`)));
  if (h.selectableFields !== undefined && arr(h.selectableFields).length > 0) {
    errs.push(...validateSelectableFields(arr(h.selectableFields), schemaOf(h.validation), 'spec.selectableFields'));
  }
  errs.push(...validateConversion(obj(spec.conversion), 'spec.conversion'));
  return errs;
}

function validateVersion(v: Version, path: string, statusEnabled: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!v.deprecated && v.deprecationWarning !== undefined && v.deprecationWarning !== null) {
    errs.push(invalid(at(path, 'deprecationWarning'), v.deprecationWarning, 'can only be set for deprecated versions'));
  } else if (typeof v.deprecationWarning === 'string') {
    const w = v.deprecationWarning;
    if (w.length > 256) errs.push(invalid(at(path, 'deprecationWarning'), w, 'must be <= 256 characters long'));
    if (w.length === 0) errs.push(invalid(at(path, 'deprecationWarning'), w, 'must not be an empty string'));
    const bad = [...w].findIndex((ch) => /\p{Cc}/u.test(ch));
    if (bad >= 0) errs.push(invalid(at(path, 'deprecationWarning'), w, `must only contain printable UTF-8 characters; non-printable character found at index ${bad}`));
  }
  if (v.schema !== undefined) errs.push(...validateValidation(v.schema, statusEnabled, at(path, 'schema')));
  errs.push(...validateSubresources(v.subresources, at(path, 'subresources')));
  arr(v.columns).forEach((c, i) => errs.push(...validateColumn(obj(c), `${path}.additionalPrinterColumns[${i}]`)));
  if (arr(v.selectableFields).length > 0) {
    const schema = isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? (v.schema.openAPIV3Schema as JSONSchemaProps) : undefined;
    errs.push(...validateSelectableFields(arr(v.selectableFields), schema, at(path, 'selectableFields')));
  }
  return errs;
}

// Go: validation.go ValidateCustomResourceDefinitionNames.
function validateNames(names: JSONObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const plural = str(names.plural);
  const singular = str(names.singular);
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  if (plural && isDNS1035Label(plural).length > 0) errs.push(invalid(at(path, 'plural'), plural, isDNS1035Label(plural).join(',')));
  if (singular && isDNS1035Label(singular).length > 0) errs.push(invalid(at(path, 'singular'), singular, isDNS1035Label(singular).join(',')));
  if (kind && isDNS1035Label(kind.toLowerCase()).length > 0) {
    errs.push(invalid(at(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${isDNS1035Label(kind.toLowerCase()).join(',')}`));
  }
  if (listKind && isDNS1035Label(listKind.toLowerCase()).length > 0) {
    errs.push(invalid(at(path, 'listKind'), listKind, `may have mixed case, but should otherwise match: ${isDNS1035Label(listKind.toLowerCase()).join(',')}`));
  }
  strs(names.shortNames).forEach((s, i) => {
    if (isDNS1035Label(s).length > 0) errs.push(invalid(`${path}.shortNames[${i}]`, s, isDNS1035Label(s).join(',')));
  });
  if (kind && kind === listKind) errs.push(invalid(at(path, 'listKind'), listKind, 'kind and listKind may not be the same'));
  strs(names.categories).forEach((s, i) => {
    if (isDNS1035Label(s).length > 0) errs.push(invalid(`${path}.categories[${i}]`, s, isDNS1035Label(s).join(',')));
  });
  return errs;
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateColumn(col: JSONObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(col.name) === '') errs.push(required(at(path, 'name')));
  const type = str(col.type);
  if (type === '') errs.push(required(at(path, 'type'), `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalid(at(path, 'type'), type, `must be one of ${COLUMN_TYPES.join(',')}`));
  const format = str(col.format);
  if (format && !COLUMN_FORMATS.includes(format)) errs.push(invalid(at(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  const jp = str(col.jsonPath);
  if (jp === '') errs.push(required(at(path, 'JSONPath')));
  else errs.push(...validateSimpleJSONPath(jp, at(path, 'JSONPath')));
  return errs;
}

// Go: validation.go ValidateCustomResourceSelectableFields (path resolution simplified to dotted field paths).
function validateSelectableFields(fields: unknown[], schema: JSONSchemaProps | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jp = str(obj(f).jsonPath);
    if (jp === '') {
      errs.push(required(p));
      return;
    }
    const parts = jp.replace(/^\./, '').split('.');
    let node: JSONSchemaProps | undefined = schema;
    for (const part of parts) node = node?.properties?.[part];
    if (!jp.startsWith('.') || node === undefined) {
      errs.push(invalid(p, jp, `is an invalid path: does not refer to a valid field`));
      return;
    }
    if (parts[0] === 'metadata') errs.push(invalid(p, jp, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(node.type ?? '')) {
      errs.push(invalid(p, jp, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(jp)) errs.push(duplicate(p, jp));
    seen.add(jp);
  });
  if (seen.size > 8) errs.push({ type: 'FieldValueTooMany', field: path, badValue: seen.size, detail: 'must have at most 8 items' });
  return errs;
}

// Go: validation.go ValidateCustomResourceDefinitionSubresources.
function validateSubresources(sub: unknown, path: string): FieldError[] {
  if (!isObject(sub) || !isObject(sub.scale)) return [];
  const scale = sub.scale;
  const errs: FieldError[] = [];
  const spec = str(scale.specReplicasPath);
  if (spec === '') errs.push(required(at(path, 'scale.specReplicasPath')));
  else {
    const e = validateSimpleJSONPath(spec, at(path, 'scale.specReplicasPath'));
    if (e.length > 0) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(invalid(at(path, 'scale.specReplicasPath'), spec, 'should be a json path under .spec'));
  }
  const status = str(scale.statusReplicasPath);
  if (status === '') errs.push(required(at(path, 'scale.statusReplicasPath')));
  else {
    const e = validateSimpleJSONPath(status, at(path, 'scale.statusReplicasPath'));
    if (e.length > 0) errs.push(...e);
    else if (!status.startsWith('.status.')) errs.push(invalid(at(path, 'scale.statusReplicasPath'), status, 'should be a json path under .status'));
  }
  const sel = str(scale.labelSelectorPath);
  if (sel !== '') {
    const e = validateSimpleJSONPath(sel, at(path, 'scale.labelSelectorPath'));
    if (e.length > 0) errs.push(...e);
    else if (!sel.startsWith('.spec.') && !sel.startsWith('.status.')) {
      errs.push(invalid(at(path, 'scale.labelSelectorPath'), sel, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

// Go: validation.go validateCustomResourceConversion (v1 spec.conversion.webhook.* map to the internal names).
function validateConversion(conv: JSONObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const strategy = str(conv.strategy);
  if (strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(strategy === '' ? required(at(path, 'strategy')) : notSupported(at(path, 'strategy'), strategy, ['None', 'Webhook']));
  }
  const webhook = isObject(conv.webhook) ? conv.webhook : undefined;
  const clientConfig = webhook && isObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook ? strs(webhook.conversionReviewVersions) : [];
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(required(at(path, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) {
      errs.push(required(at(path, 'webhookClientConfig'), 'exactly one of url or service is required'));
    }
    const p = at(path, 'conversionReviewVersions');
    if (reviewVersions.length === 0) errs.push(required(p));
    else {
      const seen = new Set<string>();
      let accepted = false;
      reviewVersions.forEach((v, i) => {
        if (seen.has(v)) {
          errs.push(invalid(idx(p, i), v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const e of isDNS1035Label(v)) errs.push(invalid(idx(p, i), v, e));
        if (v === 'v1' || v === 'v1beta1') accepted = true;
      });
      if (!accepted) errs.push(invalid(p, reviewVersions, 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (clientConfig) errs.push(forbidden(at(path, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errs.push(forbidden(at(path, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

// ---- schemas ----

// Root fields allowed when the status subresource is on (allowedFieldsAtRootSchema, in JSON names).
const ROOT_ALLOWED_WITH_STATUS = new Set([
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items', 'properties',
  'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
]);

// Fields that are pointers in Go's JSONSchemaProps: present means non-zero, whatever the value.
const POINTER_FIELDS = new Set([
  'default', 'example', 'items', 'not', 'additionalProperties', 'additionalItems', 'externalDocs', 'maximum', 'minimum',
  'maxLength', 'minLength', 'maxItems', 'minItems', 'multipleOf', 'maxProperties', 'minProperties', '$ref',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-type', 'x-kubernetes-map-type',
]);
const isZeroField = (k: string, v: unknown) => (POINTER_FIELDS.has(k) ? v === undefined || v === null : isZero(v));

// isZero mirrors reflect.DeepEqual(value, zero) on the internal JSONSchemaProps fields.
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

// Go: validation.go validateCustomResourceDefinitionValidation.
function validateValidation(validation: unknown, statusEnabled: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const schema = isObject(validation) && isObject(validation.openAPIV3Schema) ? (validation.openAPIV3Schema as JSONSchemaProps) : undefined;
  if (!schema) return errs;
  const root = at(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (isZeroField(k, v)) continue;
      if (k === 'type') {
        if (v !== 'object') {
          errs.push(invalid(at(path, 'openAPIV3Schema.type'), v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ROOT_ALLOWED_WITH_STATUS.has(k)) {
        errs.push(
          invalid(
            root,
            schema,
            'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
          ),
        );
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(forbidden(at(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  const structural = validateStructural(schema, root);
  if (structural.length > 0) errs.push(...structural);
  else errs.push(...validateDefaults(schema, root, true));
  errs.push(...validateOpenAPISchema(schema, root, { allowDefaults: true, reason: '', insideMeta: false }, true));
  return errs;
}

interface Ssv {
  allowDefaults: boolean;
  reason: string;
  insideMeta: boolean;
}
const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

const sortedKeys = (o: unknown) => (isObject(o) ? Object.keys(o).sort() : []);
const asSchema = (v: unknown) => (isObject(v) ? (v as JSONSchemaProps) : undefined);

// Go: validation.go ValidateCustomResourceDefinitionOpenAPISchema and specStandardValidatorV3.validate.
function validateOpenAPISchema(schema: JSONSchemaProps | undefined, path: string, ssv: Ssv, isRoot: boolean): FieldError[] {
  if (!schema) return [];
  const s = schema as JSONObject & JSONSchemaProps;
  const errs: FieldError[] = [];
  // specStandardValidatorV3.validate
  const type = str(s.type);
  if (type !== '' && !OPENAPI_TYPES.includes(type)) errs.push(notSupported(at(path, 'type'), type, OPENAPI_TYPES));
  if (s.default !== undefined && !ssv.allowDefaults) errs.push(forbidden(at(path, 'default'), `must not be set${ssv.reason ? ` ${ssv.reason}` : ''}`));
  if (str(s.id) !== '') errs.push(forbidden(at(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(forbidden(at(path, 'additionalItems'), 'additionalItems is not supported'));
  if (sortedKeys(s.patternProperties).length > 0) errs.push(forbidden(at(path, 'patternProperties'), 'patternProperties is not supported'));
  if (sortedKeys(s.definitions).length > 0) errs.push(forbidden(at(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) errs.push(forbidden(at(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(at(path, '$ref'), '$ref is not supported'));
  if (type === 'null') errs.push(forbidden(at(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(forbidden(at(path, 'items'), 'items must be a schema object and not an array'));
  if (ssv.insideMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(forbidden(at(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }

  if (s.uniqueItems === true) errs.push(forbidden(at(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const props = isObject(s.properties) ? s.properties : {};
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (Object.keys(props).length > 0 && (s.additionalProperties === false || isObject(s.additionalProperties))) {
      errs.push(forbidden(at(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ssv.insideMeta ? { ...ssv, allowDefaults: false, reason: 'inside additionalProperties applying to object metadata' } : ssv;
    errs.push(...validateOpenAPISchema(asSchema(s.additionalProperties), at(path, 'additionalProperties'), sub, false));
  }
  for (const k of Object.keys(props).sort()) {
    let sub = ssv;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(k)) {
      sub = { ...sub, insideMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, reason: `in top-level ${k}` };
    }
    errs.push(...validateOpenAPISchema(asSchema(props[k]), key(at(path, 'properties'), k), sub, false));
  }
  errs.push(...validateOpenAPISchema(asSchema(s.not), at(path, 'not'), ssv, false));
  for (const [name, list] of [['allOf', s.allOf], ['oneOf', s.oneOf], ['anyOf', s.anyOf]] as const) {
    arr(list).forEach((x, i) => errs.push(...validateOpenAPISchema(asSchema(x), `${path}.${name}[${i}]`, ssv, false)));
  }
  for (const k of sortedKeys(s.definitions)) errs.push(...validateOpenAPISchema(asSchema(obj(s.definitions)[k]), key(at(path, 'definitions'), k), ssv, false));
  if (isObject(s.items)) errs.push(...validateOpenAPISchema(s.items as JSONSchemaProps, at(path, 'items'), ssv, false));
  else if (Array.isArray(s.items)) (s.items as unknown[]).forEach((x, i) => errs.push(...validateOpenAPISchema(asSchema(x), `${path}.items[${i}]`, ssv, false)));
  for (const k of sortedKeys(s.dependencies)) errs.push(...validateOpenAPISchema(asSchema(obj(s.dependencies)[k]), key(at(path, 'dependencies'), k), ssv, false));

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(at(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    errs.push(!s.type ? required(at(path, 'type'), 'must be object if x-kubernetes-map-type is specified') : invalid(at(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(at(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));

  const listType = s['x-kubernetes-list-type'] as string | undefined;
  const items = asSchema(Array.isArray(s.items) ? undefined : s.items);
  if (listType !== undefined && s.type !== 'array') {
    errs.push(!s.type ? required(at(path, 'type'), 'must be array if x-kubernetes-list-type is specified') : invalid(at(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalid(`${path}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(invalid(`${path}.items.x-kubernetes-map-type`, items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(at(path, 'x-kubernetes-list-type'), listType, ['atomic', 'map', 'set']));
  const mapKeys = strs(s['x-kubernetes-list-map-keys']);
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(required(at(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(at(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(required(at(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(required(at(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push(invalid(at(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') errs.push(invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const seenKeys = new Set<string>();
      for (const k of mapKeys) {
        const kp = items.properties?.[k];
        if (kp) {
          if (kp.type === 'array' || kp.type === 'object') {
            errs.push(invalid(`${key(`${path}.items.properties`, k)}.type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else errs.push(invalid(at(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        if (seenKeys.has(k)) errs.push(invalid(at(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seenKeys.add(k);
      }
    }
  }
  // Go: validateMapListKeysMapSet
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable) errs.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const req = new Set(items.required ?? []);
      for (const k of mapKeys) {
        const kp = items.properties?.[k];
        if (!kp) continue;
        if (!req.has(k) && kp.default === undefined) {
          errs.push(required(`${key(`${path}.items.properties`, k)}.default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (kp.nullable) errs.push(forbidden(`${key(`${path}.items.properties`, k)}.nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  // x-kubernetes-validations: shape only (rules are not compiled).
  arr(s['x-kubernetes-validations']).forEach((r, i) => {
    const rule = obj(r);
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const ruleText = str(rule.rule).trim();
    const msg = str(rule.message);
    if (ruleText === '') errs.push(required(at(p, 'rule'), 'rule is not specified'));
    else if (msg.length > 0 && msg.trim() === '') errs.push(invalid(at(p, 'message'), msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) errs.push(invalid(at(p, 'message'), msg, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(ruleText) && msg.trim() === '') errs.push(required(at(p, 'message'), 'message must be specified if rule contains line breaks'));
    const me = str(rule.messageExpression);
    if (me.length > 0 && me.trim() === '') errs.push(required(at(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    if (rule.reason !== undefined && !VALIDATION_REASONS.includes(str(rule.reason))) errs.push(notSupported(at(p, 'reason'), rule.reason, VALIDATION_REASONS));
  });
  return errs;
}

// ---- structural schemas. Go: pkg/apiserver/schema/validation.go ValidateStructural (+ complete.go) ----

type Level = 'root' | 'item' | 'field';

// Keys that belong to the structural spine / generics / extensions of a node (everything else is value validation).
const NESTED_FORBIDDEN: [string, string, (v: unknown) => boolean][] = [
  ['type', 'must be empty to be structural', (v) => typeof v === 'string' && v !== ''],
  ['default', 'must be undefined to be structural', (v) => v !== undefined && v !== null],
  ['title', 'must be empty to be structural', (v) => typeof v === 'string' && v !== ''],
  ['description', 'must be empty to be structural', (v) => typeof v === 'string' && v !== ''],
  ['nullable', 'must be false to be structural', (v) => v === true],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural', (v) => v === true],
  ['x-kubernetes-embedded-resource', 'must be false to be structural', (v) => v === true],
  ['x-kubernetes-int-or-string', 'must be false to be structural', (v) => v === true],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural', (v) => Array.isArray(v) && v.length > 0],
  ['x-kubernetes-list-type', 'must be undefined to be structural', (v) => v !== undefined && v !== null],
  ['x-kubernetes-map-type', 'must be undefined to be structural', (v) => v !== undefined && v !== null],
  ['x-kubernetes-validations', 'must be empty to be structural', (v) => Array.isArray(v) && v.length > 0],
];

function isIntOrStringAnyOf(list: unknown): boolean {
  const a = arr(list);
  return a.length === 2 && deepEqualJSON(a[0], { type: 'integer' }) && deepEqualJSON(a[1], { type: 'string' });
}

function validateStructural(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs = [...structuralInvariants(schema, 'root', path), ...completeness(schema, schema, path, path)];
  return errs.sort((a, b) => (fieldErrorKey(a) < fieldErrorKey(b) ? -1 : fieldErrorKey(a) > fieldErrorKey(b) ? 1 : 0));
}

// fieldErrorKey orders like Go's sort by err.Error() (field path first, then the body).
function fieldErrorKey(e: FieldError): string {
  return `${e.field}: ${e.type}: ${e.detail}`;
}

function structuralInvariants(s: JSONSchemaProps | undefined, lvl: Level, path: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const items = asSchema(Array.isArray(s.items) ? undefined : s.items);
  if (s.type === 'array' && !items) errs.push(required(at(path, 'items'), 'must be specified'));
  errs.push(...structuralInvariants(items, 'item', at(path, 'items')));
  const props = s.properties ?? {};
  for (const k of Object.keys(props)) errs.push(...structuralInvariants(props[k], 'field', key(at(path, 'properties'), k)));
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(forbidden(at(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObject(s.additionalProperties)) errs.push(...structuralInvariants(s.additionalProperties as JSONSchemaProps, 'field', at(path, 'additionalProperties')));
  }
  const ios = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (ios && preserve) errs.push(invalid(at(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (ios && embedded) errs.push(invalid(at(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  errs.push(...valueValidation(s, isIntOrStringAnyOf(s.anyOf), arr(s.allOf).length > 0 && isIntOrStringAnyOf(obj(arr(s.allOf)[0]).anyOf), path));

  const checkMetadata = lvl === 'root' || embedded;
  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    errs.push(type === '' ? required(at(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true') : invalid(at(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !ios && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(required(at(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    errs.push(forbidden(at(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(invalid(at(path, 'type'), type, 'must be object at the root'));
  if (checkMetadata && props.kind && props.kind.type !== 'string') errs.push(invalid(`${key(at(path, 'properties'), 'kind')}.type`, props.kind.type ?? '', 'must be string'));
  if (checkMetadata && props.apiVersion && props.apiVersion.type !== 'string') {
    errs.push(invalid(`${key(at(path, 'properties'), 'apiVersion')}.type`, props.apiVersion.type ?? '', 'must be string'));
  }
  if (props.metadata) errs.push(...metadataInvariants(props.metadata, checkMetadata, lvl, key(at(path, 'properties'), 'metadata')));
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(required(at(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

function metadataInvariants(s: JSONSchemaProps, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(invalid(at(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    const rest: JSONObject = { ...(s as JSONObject) };
    delete rest.type;
    delete rest.default;
    const props = isObject(rest.properties) ? Object.keys(rest.properties) : [];
    if (props.length > 0 && props.every((p) => p === 'name' || p === 'generateName')) delete rest.properties;
    if (Object.values(rest).some((v) => !isZero(v))) {
      errs.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errs;
}

// Go: validateValueValidation / validateNestedValueValidation.
function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) arr(s.anyOf).forEach((x, i) => errs.push(...nestedValueValidation(asSchema(x), false, `${path}.anyOf[${i}]`)));
  arr(s.allOf).forEach((x, i) => errs.push(...nestedValueValidation(asSchema(x), skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`)));
  arr(s.oneOf).forEach((x, i) => errs.push(...nestedValueValidation(asSchema(x), false, `${path}.oneOf[${i}]`)));
  errs.push(...nestedValueValidation(asSchema(s.not), false, at(path, 'not')));
  if (typeof s.pattern === 'string' && s.pattern !== '') {
    try {
      // Go: regexp.Compile — RE2 syntax (no lookaround or backreferences), Go's error text.
      RE2JS.compile(s.pattern);
    } catch (e) {
      errs.push(invalid(at(path, 'pattern'), s.pattern, `must be a valid regular expression, but isn't: ${(e as Error).message}`));
    }
  }
  return errs;
}

function nestedValueValidation(v: JSONSchemaProps | undefined, skipAnyOf: boolean, path: string): FieldError[] {
  if (!v) return [];
  const errs: FieldError[] = [];
  errs.push(...valueValidation(v, skipAnyOf, false, path));
  errs.push(...nestedValueValidation(asSchema(v.items), false, at(path, 'items')));
  for (const k of Object.keys(v.properties ?? {})) errs.push(...nestedValueValidation(v.properties![k], false, key(at(path, 'properties'), k)));
  const raw = v as JSONObject;
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) errs.push(forbidden(at(path, 'additionalProperties'), 'must be undefined to be structural'));
  for (const [k, detail, bad] of NESTED_FORBIDDEN) if (bad(raw[k])) errs.push(forbidden(at(path, k), detail));
  if (v.properties && hasKey(v.properties, 'metadata')) errs.push(forbidden(key(at(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return errs;
}

// Go: complete.go validateStructuralCompleteness — properties named in the root's value validations (allOf,
// anyOf, oneOf, not) must exist in the structural spine. Like upstream, only the root's value validations are checked.
function completeness(v: JSONSchemaProps, s: JSONSchemaProps, sPath: string, vPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const nested = (x: unknown, p: string) => errs.push(...nestedCompleteness(asSchema(x), s, sPath, p));
  nested(v.not, at(vPath, 'not'));
  arr(v.allOf).forEach((x, i) => nested(x, `${vPath}.allOf[${i}]`));
  arr(v.anyOf).forEach((x, i) => nested(x, `${vPath}.anyOf[${i}]`));
  arr(v.oneOf).forEach((x, i) => nested(x, `${vPath}.oneOf[${i}]`));
  return errs;
}

function nestedCompleteness(v: JSONSchemaProps | undefined, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  if (!v) return [];
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  const inner = (x: unknown, p: string) => errs.push(...nestedCompleteness(asSchema(x), s, sPath, p));
  inner(v.not, at(vPath, 'not'));
  arr(v.allOf).forEach((x, i) => inner(x, `${vPath}.allOf[${i}]`));
  arr(v.anyOf).forEach((x, i) => inner(x, `${vPath}.anyOf[${i}]`));
  arr(v.oneOf).forEach((x, i) => inner(x, `${vPath}.oneOf[${i}]`));
  const sItems = asSchema(Array.isArray(s.items) ? undefined : s.items);
  errs.push(...nestedCompleteness(asSchema(v.items), sItems, at(sPath, 'items'), at(vPath, 'items')));
  for (const k of Object.keys(v.properties ?? {})) {
    const sFld = s.properties?.[k];
    if (!sFld) errs.push(required(key(at(sPath, 'properties'), k), `because it is defined in ${key(at(vPath, 'properties'), k)}`));
    else errs.push(...nestedCompleteness(v.properties![k], sFld, key(at(sPath, 'properties'), k), key(at(vPath, 'properties'), k)));
  }
  return errs;
}

// ---- defaults. Go: pkg/apiserver/schema/defaulting/validation.go ValidateDefaults ----
function validateDefaults(s: JSONSchemaProps | undefined, path: string, isResourceRoot: boolean): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.default !== undefined && s.default !== null) {
    const embedded = isResourceRoot || s['x-kubernetes-embedded-resource'] === true;
    if (unknownPaths(s, s.default, embedded).length > 0) errs.push(invalid(at(path, 'default'), s.default, 'must not have unknown fields'));
    for (const e of validateValue(s, s.default)) errs.push({ ...e, field: e.field === '' ? at(path, 'default') : `${at(path, 'default')}.${e.field}` });
  }
  const items = asSchema(Array.isArray(s.items) ? undefined : s.items);
  if (items) errs.push(...validateDefaults(items, at(path, 'items'), false));
  for (const k of Object.keys(s.properties ?? {})) errs.push(...validateDefaults(s.properties![k], key(at(path, 'properties'), k), false));
  return errs;
}
