// stamp.ts: the hash and metadata addon-controller puts on every object it deploys. Pure.
// Go: libsveltos lib/deployer/applier.go GetResource, ComputePolicyHash, AddMetadata; addon-controller
// controllers/handlers_utils.go addStaleResourceScopingAnnotations
import { createHash } from 'node:crypto';
import { Annotations, Labels, type ClusterType } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { clusterSummaryAnnotationValue, REASON_RESOURCES, type ProfileKind } from './names.js';

/** goJSON is encoding/json's Marshal of a decoded object: map keys sorted, `<`, `>`, `&`, U+2028/9 escaped. */
export function goJSON(v: unknown): string {
  const parts: string[] = [];
  writeJSON(v, parts);
  return parts.join('');
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_G = /[<>&\u2028\u2029]/g;

function quoteString(s: string): string {
  const q = JSON.stringify(s);
  return HTML_UNSAFE.test(q) ? q.replace(HTML_UNSAFE_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : q;
}

// A direct writer (no replacer, no intermediate objects): this runs for every status and spec comparison.
function writeJSON(v: unknown, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.push(quoteString(v));
      return;
    case 'number':
    case 'boolean':
      out.push(JSON.stringify(v));
      return;
    case 'bigint':
      out.push(v.toString());
      return;
    case 'object': {
      if (Array.isArray(v)) {
        out.push('[');
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.push(',');
          writeJSON(v[i] === undefined || typeof v[i] === 'function' ? null : v[i], out);
        }
        out.push(']');
        return;
      }
      const o = v as Record<string, unknown>;
      if (typeof (o as { toJSON?: unknown }).toJSON === 'function') {
        writeJSON(JSON.parse(JSON.stringify(o)), out);
        return;
      }
      const keys = Object.keys(o).sort();
      out.push('{');
      let first = true;
      for (const k of keys) {
        const x = o[k];
        if (x === undefined || typeof x === 'function') continue;
        if (!first) out.push(',');
        first = false;
        out.push(quoteString(k), ':');
        writeJSON(x, out);
      }
      out.push('}');
      return;
    }
    default:
      out.push('null');
  }
}

/** sha256Hex hashes text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * policyHash is `sha256:<hex>` of the key-sorted JSON of the object without its `projectsveltos.io/hash`
 * annotation — computed before stamping, as Sveltos does. Go: ComputePolicyHash
 */
export function policyHash(obj: KubeObject): string {
  const anns = obj.metadata?.annotations;
  let target: unknown = obj;
  if (anns && Annotations.hash in anns) {
    const { [Annotations.hash]: _drop, ...rest } = anns;
    target = { ...obj, metadata: { ...obj.metadata, annotations: rest } };
  }
  return `sha256:${sha256Hex(goJSON(target))}`;
}

/** StampContext is who deploys an object and from where: the facts the stamps record. */
export interface StampContext {
  /** The ConfigMap/Secret the object came from. */
  reference: { kind: string; namespace: string; name: string; tier: number };
  profile: { kind: ProfileKind; name: string; tier: number };
  cluster: { type: ClusterType; namespace: string; name: string };
  deploymentType: 'Local' | 'Remote';
  extraLabels?: Readonly<Record<string, string>>;
  extraAnnotations?: Readonly<Record<string, string>>;
  /** The `projectsveltos.io/reason` label: the feature deploying it (default Resources; Kustomize). */
  reason?: string;
}

/**
 * stampObject returns a copy of obj carrying Sveltos' label and annotations (reason, reference-*, hash, owner-*,
 * clustersummary, deploymenttype) and the profile's extraLabels/extraAnnotations (which override). The hash is
 * computed on the unstamped object and returned with it.
 */
export function stampObject(obj: KubeObject, ctx: StampContext): { object: KubeObject; hash: string } {
  const hash = policyHash(obj);
  const labels: Record<string, string> = { ...(obj.metadata.labels ?? {}), [Labels.reason]: ctx.reason ?? REASON_RESOURCES };
  const annotations: Record<string, string> = {
    ...(obj.metadata.annotations ?? {}),
    [Annotations.referenceKind]: ctx.reference.kind,
    [Annotations.referenceName]: ctx.reference.name,
    [Annotations.referenceNamespace]: ctx.reference.namespace,
    [Annotations.referenceTier]: String(ctx.reference.tier),
    [Annotations.hash]: hash,
    [Annotations.ownerTier]: String(ctx.profile.tier),
    [Annotations.ownerName]: ctx.profile.name,
    [Annotations.ownerKind]: ctx.profile.kind,
    [Annotations.clusterSummary]: clusterSummaryAnnotationValue(ctx.cluster.type, ctx.cluster.namespace, ctx.cluster.name),
    [Annotations.deploymentType]: ctx.deploymentType,
  };
  Object.assign(labels, ctx.extraLabels ?? {});
  Object.assign(annotations, ctx.extraAnnotations ?? {});
  return { object: { ...obj, metadata: { ...obj.metadata, labels, annotations } }, hash };
}

/** STAMP_ANNOTATIONS are the annotation keys stampObject sets (LeavePolicies removes them). */
export const STAMP_ANNOTATIONS: readonly string[] = [
  Annotations.referenceKind,
  Annotations.referenceName,
  Annotations.referenceNamespace,
  Annotations.referenceTier,
  Annotations.hash,
  Annotations.ownerTier,
  Annotations.ownerName,
  Annotations.ownerKind,
  Annotations.clusterSummary,
  Annotations.deploymentType,
];
