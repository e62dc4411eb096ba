// Object shapes the server handles: every stored object is plain JSON with apimachinery's ObjectMeta.
import { jsonCopy } from '../api/index.js';

/** OwnerReference is metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** ObjectMeta is metav1.ObjectMeta as JSON. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [extra: string]: unknown;
}

/** KubeObject is any API object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** Stored is an object as kept in memory: the JSON object (never mutated once stored) and its serialization. */
/** JsonText is a JSON text: one string, or pieces that concatenated make it. */
export type JsonText = string | readonly string[];

export interface Stored {
  readonly obj: KubeObject & { metadata: ObjectMeta };
  readonly rv: number;
  /** JSON text of obj, computed once on first use. */
  json?: string;
  /** The JSON text as kept, when it may be in pieces (a large object, parsed.ts): write it without joining. */
  readonly jsonText?: JsonText;
  /** The length of json, when known without computing it. */
  readonly size?: number;
  /** obj.metadata.labels, kept even while obj itself is not (parsed.ts): label selectors match without parsing. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Whether obj.metadata.deletionTimestamp is set, kept like labels (the garbage collector asks it of owners). */
  readonly deleting?: boolean;
}

/** isPlainObject tells whether v is a JSON object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** deepEqual compares two JSON values structurally. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/**
 * clone deep-copies a JSON value with JSON.parse(JSON.stringify(v))'s result — undefined members dropped, undefined
 * array entries and non-finite numbers as null, -0 as 0 — without serializing: strings are shared (immutable), so a
 * report's large base64 blob costs nothing to copy. Anything unusual (toJSON, class instances, bigint, a root that
 * is not JSON) takes the JSON round trip itself.
 */
export function clone<T>(v: T): T {
  if (v === undefined) return v;
  if (v === null || typeof v !== 'object') return (typeof v === 'string' || typeof v === 'boolean' ? v : (JSON.parse(JSON.stringify(v)) as T)) as T;
  return jsonCopy(v);
}
