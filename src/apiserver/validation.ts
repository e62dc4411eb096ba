// Object metadata validation with kube-apiserver's exact messages.
// Go: k8s.io/apimachinery/pkg/util/validation/validation.go, pkg/api/validation/objectmeta.go,
// pkg/apis/meta/v1/validation/validation.go, pkg/api/validation/path/name.go
import type { FieldError } from './schema/index.js';
import type { KubeObject, ObjectMeta, OwnerReference } from './types.js';

const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

// Go: validation.RegexError
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}
const maxLenError = (n: number) => `must be no more than ${n} characters`;
const byteLen = (s: string) => Buffer.byteLength(s, 'utf8');

/** isDNS1123Label returns the problems of a DNS (RFC 1123) label. Go: validation.IsDNS1123Label */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** isDNS1123Subdomain returns the problems of a DNS (RFC 1123) subdomain. Go: validation.IsDNS1123Subdomain */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** isDNS1035Label returns the problems of a DNS (RFC 1035) label. Go: validation.IsDNS1035Label */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLen(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

// Label and annotation keys and label values repeat across objects and writes: the ones found valid are
// remembered (bounded; forgotten all at once when full).
const VALID_MEMO_MAX = 8192;
const validQualifiedNames = new Set<string>();
const validLabelValues = new Set<string>();
function rememberValid(memo: Set<string>, value: string, errs: string[]): string[] {
  if (errs.length === 0) {
    if (memo.size >= VALID_MEMO_MAX) memo.clear();
    memo.add(value);
  }
  return errs;
}

/** isQualifiedName returns the problems of a qualified name such as a label key. Go: validation.IsQualifiedName */
export function isQualifiedName(value: string): string[] {
  if (validQualifiedNames.has(value)) return [];
  return rememberValid(validQualifiedNames, value, qualifiedNameErrors(value));
}

function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0];
      break;
    case 2: {
      const prefix = parts[0];
      name = parts[1];
      if (prefix.length === 0) errs.push('prefix part must be non-empty');
      else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
      break;
    }
    default:
      return [
        `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLen(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** isValidLabelValue returns the problems of a label value. Go: validation.IsValidLabelValue */
export function isValidLabelValue(value: string): string[] {
  if (validLabelValues.has(value)) return [];
  const errs: string[] = [];
  if (byteLen(value) > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return rememberValid(validLabelValues, value, errs);
}

/** isValidPathSegmentName returns the problems of a name used as one URL path segment. Go: path.IsValidPathSegmentName */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** NameRule is how a kind's metadata.name is validated; the descriptor of each kind picks one. */
export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';

// Go: apimachineryvalidation.maskTrailingDash — a generateName may end in '-'.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

/** validateName applies a NameRule; prefix=true validates a generateName. Go: ValidateNameFunc implementations */
export function validateName(rule: NameRule, name: string, prefix: boolean): string[] {
  switch (rule) {
    case 'dns1123Subdomain':
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'dns1123Label':
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1035Label':
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case 'pathSegment':
      return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
  }
}

function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

const invalidErr = (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail });

/** validateLabels checks label keys and values. Go: v1validation.ValidateLabels */
export function validateLabels(labels: Record<string, unknown> | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(invalidErr(field, k, m));
    if (typeof v !== 'string') errs.push({ type: 'FieldValueTypeInvalid', field: `${field}.${k}`, badValue: v, detail: 'must be a string' });
    else for (const m of isValidLabelValue(v)) errs.push(invalidErr(field, v, m));
  }
  return errs;
}

/** TOTAL_ANNOTATION_SIZE_LIMIT is apimachinery's TotalAnnotationSizeLimitB (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** validateAnnotations checks annotation keys and the total size. Go: ValidateAnnotations */
export function validateAnnotations(annotations: Record<string, unknown> | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalidErr(field, k, m));
    if (typeof v !== 'string') errs.push({ type: 'FieldValueTypeInvalid', field: `${field}.${k}`, badValue: v, detail: 'must be a string' });
    else total += byteLen(k) + byteLen(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field, detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

// Go: validateOwnerReference / ValidateOwnerReferences
function validateOwnerReferences(refs: OwnerReference[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const av = ref.apiVersion ?? '';
    const version = av.includes('/') ? av.slice(av.indexOf('/') + 1) : av;
    if (!version) errs.push(invalidErr(`${field}.apiVersion`, av, 'version must not be empty'));
    if (!ref.kind) errs.push(invalidErr(`${field}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(invalidErr(`${field}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(invalidErr(`${field}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (av === 'v1' && ref.kind === 'Event') errs.push(invalidErr(field, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const cur = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          invalidErr(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`),
        );
      } else firstController = cur;
    }
  }
  return errs;
}

// Go: ValidateFinalizers
function validateFinalizers(finalizers: string[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) for (const m of isQualifiedName(f)) errs.push(invalidErr(field, f, m));
  const list = finalizers ?? [];
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalidErr(field, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** validateObjectMeta checks the metadata of an object being created. Go: ValidateObjectMetaAccessor */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, rule: NameRule): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) for (const m of validateName(rule, meta.generateName, true)) errs.push(invalidErr('metadata.generateName', meta.generateName, m));
  if (!meta.name) errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' });
  else for (const m of validateName(rule, meta.name, false)) errs.push(invalidErr('metadata.name', meta.name, m));
  if (namespaced) {
    if (!meta.namespace) errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace', detail: '' });
    else for (const m of isDNS1123Label(meta.namespace)) errs.push(invalidErr('metadata.namespace', meta.namespace, m));
  } else if (meta.namespace) {
    errs.push({ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' });
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(invalidErr('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

/** validateObjectMetaUpdate checks metadata changes of an update. Go: ValidateObjectMetaAccessorUpdate */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const extra = [...new Set(meta.finalizers ?? [])].filter((f) => !(old.finalizers ?? []).includes(f)).sort();
    if (extra.length > 0) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
      });
    }
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) errs.push(invalidErr('metadata.generation', meta.generation, 'must not be decremented'));
  const immutable: (keyof ObjectMeta)[] = ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'];
  for (const k of immutable) {
    if ((meta[k] ?? undefined) !== (old[k] ?? undefined)) errs.push(invalidErr(`metadata.${k}`, meta[k] ?? '', 'field is immutable'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

/** metadataShapeErrors reports metadata fields of the wrong JSON type (kube rejects these while decoding). */
export function metadataShapeErrors(obj: KubeObject): string | undefined {
  const m = obj.metadata as unknown;
  if (m === undefined) return undefined;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return 'metadata must be an object';
  const md = m as Record<string, unknown>;
  for (const k of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid']) {
    if (md[k] !== undefined && md[k] !== null && typeof md[k] !== 'string') return `metadata.${k} must be a string`;
  }
  for (const k of ['labels', 'annotations']) {
    const v = md[k];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) return `metadata.${k} must be a map of strings`;
  }
  for (const k of ['finalizers', 'ownerReferences', 'managedFields']) {
    const v = md[k];
    if (v !== undefined && v !== null && !Array.isArray(v)) return `metadata.${k} must be a list`;
  }
  return undefined;
}
