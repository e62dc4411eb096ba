// plan.ts: the pure heart of a deployment — given the objects a ClusterSummary wants (already rendered, stamped and
// namespaced), what the target clusters hold for them, and what the ClusterSummary deployed before, decide every
// write: namespaces to create, objects to create / update / leave alone, conflicts to report, stale objects to
// delete or release. Ordering: CRDs, then Namespaces, then the rest; deletions in reverse. Pure.
// Go: addon-controller controllers/handlers_utils.go deployUnstructured, undeployStaleResources;
// libsveltos lib/deployer (CanDeployResource, GenerateResourceReport)
import { Annotations } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { containsDesired, removePaths } from './diff.js';
import { ADOPTED_ANNOTATION } from './names.js';
import { decideOwnership, type Claim } from './ownership.js';
import { goJSON, sha256Hex } from './stamp.js';

/** Target is where an object goes: the management cluster (Local) or the ClusterSummary's cluster (Remote). */
export type Target = 'Local' | 'Remote';

/** DesiredObject is one object a ClusterSummary wants deployed, ready to apply. */
export interface DesiredObject {
  /** The object with stamps, namespace defaulted (namespaced) or cleared (cluster-scoped). */
  object: KubeObject;
  /** Sveltos' policy hash (the `projectsveltos.io/hash` stamp). */
  hash: string;
  target: Target;
  /** Subresources applied after the main apply (`projectsveltos.io/subresources`). */
  subresources: readonly string[];
  claim: Claim;
  skipNamespaceCreation: boolean;
  /** Delete and recreate when the server rejects an update as invalid/immutable (policyRef force or annotation). */
  forceRecreate: boolean;
  /** JSON pointers ignored by drift detection and not re-applied over existing objects (driftExclusions). */
  driftExclusions: readonly string[];
  /** Where it came from, for messages: `ConfigMap ns/name key k`. */
  source: string;
}

/** ObjectIdentity names an object independently of its API version. */
export interface ObjectIdentity {
  target: Target;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Action is one step of a deployment plan; the executor runs them in order. */
export type Action =
  | { type: 'createNamespace'; target: Target; name: string }
  | {
      type: 'apply';
      op: 'create' | 'update';
      id: ObjectIdentity;
      object: KubeObject;
      /** Optimistic lock: the resourceVersion the ownership decision was made on (updates only). */
      resourceVersion?: string;
      subresources: readonly string[];
      forceRecreate: boolean;
      /** Set when a lower-tier profile takes the object over: that owner's ClusterSummary must re-evaluate. */
      previousOwner?: { kind: string; name: string };
      current?: KubeObject;
      hash: string;
      /** Built from what this deployer last wrote (no read): any refusal means "look again", not a failure. */
      optimistic?: boolean;
    }
  | { type: 'unchanged'; id: ObjectIdentity; hash: string; object: KubeObject; resourceVersion?: string }
  | { type: 'conflict'; id: ObjectIdentity; message: string; owner?: { kind: string; name: string } }
  | { type: 'delete'; id: ObjectIdentity; uid?: string }
  | { type: 'release'; id: ObjectIdentity; subresources: readonly string[] }
  /** LeavePolicies: keep the object, remove Sveltos' stamps (and Ripple's adoption mark). */
  | { type: 'strip'; id: ObjectIdentity; labels: readonly string[]; annotations: readonly string[] };

/** PlanInput is everything a deployment plan depends on. */
export interface PlanInput {
  desired: readonly DesiredObject[];
  /** What the targets hold, by identityKey: the object, or null when known to be absent. */
  observed: ReadonlyMap<string, KubeObject | null>;
  /** Objects in the targets carrying this ClusterSummary's stamps (from the deployedGVKs scan). */
  deployed: readonly { target: Target; object: KubeObject }[];
  /** Namespaces known to exist, per target (`Local:ns`, `Remote:ns`). */
  namespaces: ReadonlySet<string>;
  /** Apply every desired object even when it looks intact (drift detection reverting a deletion/edit works either way). */
  forceApply?: boolean;
  /**
   * What this deployer itself last wrote, by identityKey, for objects not in `observed`: their ownership was
   * settled then, so they are updated under an optimistic lock on that resourceVersion (or left alone when the
   * content is the same) without reading them first.
   */
  known?: ReadonlyMap<string, KnownObject>;
}

/** KnownObject is what the deployer last applied to an object: the resourceVersion it got back and a digest of the body. */
export interface KnownObject {
  resourceVersion: string;
  digest: string;
  adopted: boolean;
}

/** appliedDigest identifies an applied body (everything we send but the resourceVersion). */
export function appliedDigest(o: KubeObject): string {
  const { resourceVersion: _rv, ...metadata } = o.metadata;
  return sha256Hex(goJSON({ ...o, metadata }));
}

/** withAdoption adds the adoption mark (the subresources we apply) to an object. */
function withAdoption(d: DesiredObject): KubeObject {
  return { ...d.object, metadata: { ...d.object.metadata, annotations: { ...d.object.metadata.annotations, [ADOPTED_ANNOTATION]: d.subresources.join(',') } } };
}

/** groupOf returns the API group of an apiVersion (`` for core). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** identityKey keys an object by target, group, kind, namespace and name (the version does not matter). */
export function identityKey(id: ObjectIdentity): string {
  return `${id.target}|${groupOf(id.apiVersion)}|${id.kind}|${id.namespace ?? ''}|${id.name}`;
}

/** identityOf is the identity of an object in a target. */
export function identityOf(target: Target, o: KubeObject): ObjectIdentity {
  return { target, apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace || undefined, name: o.metadata.name };
}

/** rank orders kinds so definitions come before their users: CRDs, Namespaces, then everything else. */
export function rank(o: { apiVersion: string; kind: string }): number {
  if (o.kind === 'CustomResourceDefinition' && groupOf(o.apiVersion) === 'apiextensions.k8s.io') return 0;
  if (o.kind === 'Namespace' && o.apiVersion === 'v1') return 1;
  return 2;
}

/**
 * comparable is the part of a desired object that must be present in the live one: status only when a status
 * subresource is applied (the main endpoint ignores it), without drift-excluded paths.
 */
export function comparable(d: DesiredObject): KubeObject {
  let o = d.object;
  if (!d.subresources.includes('status') && 'status' in o) {
    const { status: _s, ...rest } = o;
    o = rest as KubeObject;
  }
  return d.driftExclusions.length > 0 ? removePaths(o, d.driftExclusions).value : o;
}

/** isIntact reports whether the live object still carries the desired content (same hash stamp, every field). */
export function isIntact(d: DesiredObject, observed: KubeObject): boolean {
  if (observed.metadata.annotations?.[Annotations.hash] !== d.hash) return false;
  return containsDesired(observed, comparable(d));
}

/**
 * plan decides the writes of one deployment. Conflicts never overwrite: they become `conflict` actions (the caller
 * decides whether to go on, per continueOnConflict). Stale objects (stamped by this ClusterSummary, no longer
 * desired) are deleted, or released when Ripple adopted them.
 */
export function plan(input: PlanInput): Action[] {
  const applies: Action[] = [];
  const namespaceActions: Action[] = [];
  const wantedNs = new Set<string>();
  const desiredKeys = new Set<string>();
  // Definitions first; among sources yielding the same object the lower reference tier comes first and wins.
  const desired = [...input.desired].sort((a, b) => rank(a.object) - rank(b.object) || a.claim.reference.tier - b.claim.reference.tier);
  for (const d of desired) {
    const id = identityOf(d.target, d.object);
    const key = identityKey(id);
    desiredKeys.add(key);
    if (d.object.kind === 'Namespace' && d.object.apiVersion === 'v1') wantedNs.add(`${d.target}:${d.object.metadata.name}`);
  }
  const seen = new Map<string, DesiredObject>();
  for (const d of desired) {
    const id = identityOf(d.target, d.object);
    const key = identityKey(id);
    const first = seen.get(key);
    if (first) {
      // Two references of one profile yield the same object: Sveltos reports the second as a conflict.
      if (first.source !== d.source) {
        applies.push({
          type: 'conflict',
          id,
          message: `A conflict was detected while deploying resource ${id.kind}:${id.namespace ?? ''}/${id.name} from ${d.source}: it is also deployed from ${first.source} by the same profile.\n`,
          owner: { kind: d.claim.profile.kind, name: d.claim.profile.name },
        });
      }
      continue;
    }
    seen.set(key, d);
    const ns = id.namespace;
    if (ns && !d.skipNamespaceCreation) {
      const nsKey = `${d.target}:${ns}`;
      if (!input.namespaces.has(nsKey) && !wantedNs.has(nsKey)) {
        wantedNs.add(nsKey);
        namespaceActions.push({ type: 'createNamespace', target: d.target, name: ns });
      }
    }
    const known = input.observed.has(key) ? undefined : input.known?.get(key);
    if (known) {
      let object = known.adopted ? withAdoption(d) : d.object;
      if (appliedDigest(object) === known.digest) {
        applies.push({ type: 'unchanged', id, hash: d.hash, object, resourceVersion: known.resourceVersion });
        continue;
      }
      if (d.driftExclusions.length > 0) object = removePaths(object, d.driftExclusions).value;
      applies.push({ type: 'apply', op: 'update', id, object, resourceVersion: known.resourceVersion, subresources: d.subresources, forceRecreate: d.forceRecreate, hash: d.hash, optimistic: true });
      continue;
    }
    const current = input.observed.get(key) ?? undefined;
    const verdict = decideOwnership(current, d.claim);
    switch (verdict.kind) {
      case 'conflict':
        applies.push({ type: 'conflict', id, message: verdict.message, owner: verdict.owner });
        continue;
      case 'create':
        applies.push({ type: 'apply', op: 'create', id, object: d.object, subresources: d.subresources, forceRecreate: d.forceRecreate, hash: d.hash });
        continue;
      case 'adopt':
      case 'owned':
      case 'takeover': {
        const adopted = verdict.kind === 'adopt' || current!.metadata.annotations?.[ADOPTED_ANNOTATION] !== undefined;
        let object = adopted ? withAdoption(d) : d.object;
        const effective: DesiredObject = object === d.object ? d : { ...d, object };
        if (verdict.kind === 'owned' && !input.forceApply && isIntact(effective, current!)) {
          applies.push({ type: 'unchanged', id, hash: d.hash, object, resourceVersion: current!.metadata.resourceVersion });
          continue;
        }
        // Go: removeDriftExclusionsFields — an existing object keeps its drift-excluded fields (e.g. HPA-managed replicas).
        if (d.driftExclusions.length > 0) object = removePaths(object, d.driftExclusions).value;
        applies.push({
          type: 'apply',
          op: 'update',
          id,
          object,
          resourceVersion: current!.metadata.resourceVersion,
          subresources: d.subresources,
          forceRecreate: d.forceRecreate,
          previousOwner: verdict.kind === 'takeover' ? verdict.previousOwner : undefined,
          current: current!,
          hash: d.hash,
        });
        continue;
      }
    }
  }
  const removals: { action: Action; rank: number }[] = [];
  const removed = new Set<string>();
  for (const { target, object } of input.deployed) {
    const id = identityOf(target, object);
    const key = identityKey(id);
    if (desiredKeys.has(key) || removed.has(key)) continue;
    removed.add(key);
    const adopted = object.metadata.annotations?.[ADOPTED_ANNOTATION];
    const action: Action =
      adopted !== undefined
        ? { type: 'release', id, subresources: adopted.split(',').filter((s) => s !== '') }
        : { type: 'delete', id, uid: object.metadata.uid };
    removals.push({ action, rank: rank(object) });
  }
  removals.sort((a, b) => b.rank - a.rank);
  return [...namespaceActions, ...applies, ...removals.map((r) => r.action)];
}

/**
 * planWithdrawal removes everything a ClusterSummary deployed: delete (or release, for adopted objects) with
 * WithdrawPolicies; strip the stamps and keep the objects with LeavePolicies. Go: addon-controller
 * handlers_resources.go undeployResources; LeavePolicies in clustersummary_controller.go
 */
export function planWithdrawal(deployed: readonly { target: Target; object: KubeObject }[], leavePolicies: boolean, stampAnnotations: readonly string[], stampLabels: readonly string[]): Action[] {
  if (!leavePolicies) return plan({ desired: [], observed: new Map(), deployed, namespaces: new Set() });
  const out: Action[] = [];
  const seen = new Set<string>();
  for (const { target, object } of deployed) {
    const id = identityOf(target, object);
    const key = identityKey(id);
    if (seen.has(key)) continue;
    seen.add(key);
    const anns = object.metadata.annotations ?? {};
    const labels = object.metadata.labels ?? {};
    out.push({
      type: 'strip',
      id,
      annotations: [...stampAnnotations, ADOPTED_ANNOTATION].filter((k) => k in anns),
      labels: stampLabels.filter((k) => k in labels),
    });
  }
  return out;
}
