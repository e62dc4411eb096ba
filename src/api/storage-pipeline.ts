// What a kube-apiserver does to a custom resource between the request and etcd, for CRDs with conversion
// strategy None — as pure functions, so tests can prove no user field is lost when old shapes are written through
// v1alpha1 and stored as v1beta1, and the embedded API server can follow the same steps.
// Go: k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go (schemaCoercingDecoder,
//     schemaCoercingConverter → unstructuredSchemaCoercer.apply: prune with the schema of the object's version;
//     unstructuredDefaulter), pkg/registry/customresource/strategy.go (Validate).
import type { Issue } from './issues.js';
import type { KindDescriptor } from './kinds.js';
import { applyDefaults, dropNulls, pruneUnknownFields } from './schema-ops.js';
import { validateAgainstSchema } from './schema-validate.js';

/** StorageWrite is the outcome of admitting a write: the object as stored, or why it was rejected. */
export interface StorageWrite {
  /** The object as it would be stored (storage apiVersion), undefined when rejected. */
  stored?: Record<string, unknown>;
  /** Validation errors against the request version's schema (the request is rejected when non-empty). */
  issues: Issue[];
  /** Fields dropped by pruning, with the version whose schema dropped them (`v1alpha1: spec.foo`). */
  pruned: string[];
}

function schemaOf(d: KindDescriptor, version: string) {
  const v = d.versions.find((x) => x.name === version && x.served);
  if (!v) throw new Error(`${d.kind} does not serve ${version}`); // caller error: versions come from the table
  return v.schema;
}

/**
 * admitWrite follows a create/update through the API server: decode with the request version's schema (drop
 * nulls, prune, default), validate against it, convert to the storage version (conversion None: only apiVersion
 * changes) and prune again with the storage version's schema.
 */
export function admitWrite(d: KindDescriptor, obj: Record<string, unknown>, requestVersion: string): StorageWrite {
  const schema = schemaOf(d, requestVersion);
  const o = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
  o.apiVersion = `${d.group}/${requestVersion}`;
  const pruned: string[] = [];
  dropNulls(o, schema);
  pruned.push(...pruneUnknownFields(o, schema, true).map((p) => `${requestVersion}: ${p}`));
  applyDefaults(o, schema);
  const issues = validateAgainstSchema(o, schema, '', { unknownFields: false, skipRootFields: ['metadata'] });
  if (issues.length > 0) return { issues, pruned };
  const storage = d.versions.find((v) => v.storage);
  if (!storage) throw new Error(`${d.kind} has no storage version`); // table invariant, tested
  o.apiVersion = `${d.group}/${storage.name}`;
  pruned.push(...pruneUnknownFields(o, storage.schema, true).map((p) => `${storage.name}: ${p}`));
  dropNulls(o, storage.schema);
  return { stored: o, issues, pruned };
}

/** readAs returns a stored object as a client reading it through `version` sees it (converted, pruned, defaulted). */
export function readAs(d: KindDescriptor, stored: Record<string, unknown>, version: string): Record<string, unknown> {
  const schema = schemaOf(d, version);
  const o = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>;
  o.apiVersion = `${d.group}/${version}`;
  pruneUnknownFields(o, schema, true);
  applyDefaults(o, schema);
  return o;
}
