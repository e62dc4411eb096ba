// metadata checks the API server applies to every custom resource (name, namespace, labels, annotations).
// Go: k8s.io/apimachinery/pkg/api/validation/objectmeta.go ValidateObjectMeta, ValidateAnnotations;
//     k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateLabels.
import { childPath, indexPath, isPlainObject, quoteValue, type Issue } from './issues.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './name-validation.js';

/** OBJECT_META_FIELDS are the fields of metav1.ObjectMeta (anything else under metadata is unknown). */
export const OBJECT_META_FIELDS: readonly string[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const utf8 = new TextEncoder();

/** MetaCheck is the outcome of validateObjectMeta. */
export interface MetaCheck {
  issues: Issue[];
  warnings: string[];
}

/**
 * validateObjectMeta checks `metadata` of an object of a namespaced or cluster-scoped kind: a name (or
 * generateName) that is a DNS subdomain, a DNS-label namespace, valid labels and annotation keys. A namespace on a
 * cluster-scoped object is only a warning: the API server clears it.
 */
export function validateObjectMeta(meta: unknown, scope: 'Namespaced' | 'Cluster' | 'unknown', kind: string): MetaCheck {
  const issues: Issue[] = [];
  const warnings: string[] = [];
  const add = (path: string, code: Issue['code'], message: string) => issues.push({ path, code, message });
  if (meta === undefined || meta === null) {
    add('metadata.name', 'required', 'Required value: name or generateName is required');
    return { issues, warnings };
  }
  if (!isPlainObject(meta)) {
    add('metadata', 'type', `Invalid value: ${quoteValue(meta)}: must be of type object`);
    return { issues, warnings };
  }
  const str = (k: string) => {
    const v = meta[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      add(`metadata.${k}`, 'type', `Invalid value: ${quoteValue(v)}: must be of type string`);
      return undefined;
    }
    return v;
  };
  const name = str('name');
  const generateName = str('generateName');
  if (!name && !generateName) add('metadata.name', 'required', 'Required value: name or generateName is required');
  if (name) for (const m of isDNS1123Subdomain(name)) add('metadata.name', 'invalidName', `Invalid value: ${quoteValue(name)}: ${m}`);
  if (generateName) {
    // Go: NameIsDNSSubdomain(prefix=true) masks one trailing dash before checking.
    const masked = generateName.endsWith('-') ? generateName.slice(0, -1) + 'a' : generateName;
    for (const m of isDNS1123Subdomain(masked)) add('metadata.generateName', 'invalidName', `Invalid value: ${quoteValue(generateName)}: ${m}`);
  }
  const namespace = str('namespace');
  if (namespace) {
    if (scope === 'Cluster') {
      warnings.push(`metadata.namespace "${namespace}" is ignored: ${kind} is cluster-scoped (the API server clears it)`);
    } else {
      for (const m of isDNS1123Label(namespace)) add('metadata.namespace', 'invalidName', `Invalid value: ${quoteValue(namespace)}: ${m}`);
    }
  }
  checkStringMap(meta.labels, 'metadata.labels', issues, (k, v, p) => {
    for (const m of isQualifiedName(k)) add(p, 'invalidName', `Invalid value: ${quoteValue(k)}: ${m}`);
    for (const m of isValidLabelValue(v)) add(p, 'invalidName', `Invalid value: ${quoteValue(v)}: ${m}`);
  });
  let annotationBytes = 0;
  checkStringMap(meta.annotations, 'metadata.annotations', issues, (k, v, p) => {
    for (const m of isQualifiedName(k.toLowerCase())) add(p, 'invalidName', `Invalid value: ${quoteValue(k)}: ${m}`);
    annotationBytes += utf8.encode(k).length + utf8.encode(v).length;
  });
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT) {
    add('metadata.annotations', 'maxLength', `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`);
  }
  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    if (!Array.isArray(meta.finalizers)) add('metadata.finalizers', 'type', 'Invalid value: must be a list of strings');
    else meta.finalizers.forEach((f, i) => {
      if (typeof f !== 'string') add(indexPath('metadata.finalizers', i), 'type', `Invalid value: ${quoteValue(f)}: must be of type string`);
      else for (const m of isQualifiedName(f)) add(indexPath('metadata.finalizers', i), 'invalidName', `Invalid value: ${quoteValue(f)}: ${m}`);
    });
  }
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.includes(k)) add(childPath('metadata', k), 'unknownField', `unknown field ${quoteValue(k)}`);
  }
  return { issues, warnings };
}

function checkStringMap(
  value: unknown,
  path: string,
  issues: Issue[],
  each: (k: string, v: string, path: string) => void,
): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) {
    issues.push({ path, code: 'type', message: `Invalid value: ${quoteValue(value)}: must be a map of string keys to string values` });
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const p = childPath(path, k);
    if (typeof v !== 'string') {
      issues.push({ path: p, code: 'type', message: `Invalid value: ${quoteValue(v)}: must be of type string (quote it in YAML)` });
      continue;
    }
    each(k, v, p);
  }
}
