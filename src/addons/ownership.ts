// ownership.ts: who may write an object that already exists — Sveltos' conflict rules between profiles (and
// between referenced ConfigMaps/Secrets of one profile), plus Ripple's adoption of objects nobody deployed. Pure.
// Go: libsveltos lib/deployer/utils.go ValidateObjectForUpdate, getReferenceInfo, validateSveltosOwner,
// getOwnerMessage; conflicts.go HasHigherOwnershipPriority, getTier; applier.go CanDeployResource
import { Annotations } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { ADOPTED_ANNOTATION, type ProfileKind } from './names.js';

/** Claim is what the deploying ClusterSummary wants to be recorded as for an object. */
export interface Claim {
  reference: { kind: string; namespace: string; name: string; tier: number };
  profile: { kind: ProfileKind; name: string; tier: number };
}

/** Ownership is the verdict on writing one object. */
export type Ownership =
  /** The object does not exist: create it. */
  | { kind: 'create' }
  /** Already deployed by this profile from this reference (or free to take by the rules): update it. */
  | { kind: 'owned' }
  /** Exists, and no Sveltos profile deployed it: Ripple adopts it (see README "Adopted objects"). */
  | { kind: 'adopt' }
  /** Another profile owns it but the claimant has a lower tier: take it over; the old owner must re-evaluate. */
  | { kind: 'takeover'; previousOwner: { kind: string; name: string } | undefined; message: string }
  /** Another profile (or reference) owns it and keeps it. */
  | { kind: 'conflict'; owner: { kind: string; name: string } | undefined; message: string };

const DEFAULT_TIER = 100;
const MAX_TIER = 2 ** 31 - 1;

/** parseTier is Go's getTier: unparsable or zero counts as the weakest owner. */
export function parseTier(s: string | undefined): number {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return MAX_TIER;
  const v = Number(s);
  if (v === 0 || !Number.isSafeInteger(v) || v > MAX_TIER || v < -(2 ** 31)) return MAX_TIER;
  return v;
}

/** referenceOf reads the reference-* stamps (annotations since libsveltos v1.3, labels before). Go: getReferenceInfo */
function referenceOf(o: KubeObject): { kind: string; namespace: string; name: string; tier: number } {
  const a = o.metadata.annotations ?? {};
  let tier = DEFAULT_TIER;
  if (a[Annotations.referenceTier] !== undefined && /^[+-]?\d+$/.test(a[Annotations.referenceTier])) tier = Number(a[Annotations.referenceTier]);
  if (a[Annotations.referenceKind]) {
    return { kind: a[Annotations.referenceKind], namespace: a[Annotations.referenceNamespace] ?? '', name: a[Annotations.referenceName] ?? '', tier };
  }
  const l = o.metadata.labels ?? {};
  if (l[Annotations.referenceKind] !== undefined) {
    return { kind: l[Annotations.referenceKind], namespace: l[Annotations.referenceNamespace] ?? '', name: l[Annotations.referenceName] ?? '', tier };
  }
  return { kind: '', namespace: '', name: '', tier };
}

const sveltosOwnerRefs = (o: KubeObject) => (o.metadata.ownerReferences ?? []).filter((r) => r.apiVersion?.includes('projectsveltos.io'));

/** ownerOf names the profile recorded on an object: owner-* annotations, else (pre-v0.52) a Sveltos ownerReference. */
export function ownerOf(o: KubeObject): { kind: string; name: string } | undefined {
  const a = o.metadata.annotations ?? {};
  if (a[Annotations.ownerName]) return { kind: a[Annotations.ownerKind] ?? '', name: a[Annotations.ownerName] };
  const ref = sveltosOwnerRefs(o)[0];
  return ref ? { kind: ref.kind, name: ref.name } : undefined;
}

/** ownerMessage is Sveltos' "The Sveltos profile currently deploying this resource is …" sentence. Go: getOwnerMessage */
function ownerMessage(o: KubeObject): string {
  const a = o.metadata.annotations ?? {};
  if (a[Annotations.ownerKind]) return `The Sveltos profile currently deploying this resource is ${a[Annotations.ownerKind]} ${a[Annotations.ownerName] ?? ''};\n`;
  return `The Sveltos profile currently deploying this resource is ${sveltosOwnerRefs(o).map((r) => `${r.kind} ${r.name};`).join('')}\n`;
}

/** isSveltosManaged is true when any Sveltos stamp or ownerReference says a profile deployed the object. */
export function isSveltosManaged(o: KubeObject): boolean {
  return ownerOf(o) !== undefined || referenceOf(o).kind !== '';
}

/**
 * decideOwnership applies Sveltos' rules to an existing object: a different referenced ConfigMap/Secret (unless the
 * claim's reference tier is lower) or a different profile is a conflict, resolved for the claimant only when its
 * profile tier is strictly lower than the owner's (ties keep the owner). An object no Sveltos profile deployed is
 * adopted (Sveltos simply overwrites it; Ripple records the adoption so withdrawal does not delete the user's object).
 */
export function decideOwnership(observed: KubeObject | undefined, claim: Claim): Ownership {
  if (!observed) return { kind: 'create' };
  const a = observed.metadata.annotations ?? {};
  if (!isSveltosManaged(observed)) return a[ADOPTED_ANNOTATION] !== undefined ? { kind: 'owned' } : { kind: 'adopt' };
  const ref = referenceOf(observed);
  const what = `${observed.kind}:${observed.metadata.namespace ?? ''}/${observed.metadata.name}`;
  const conflictText = () =>
    `A conflict was detected while deploying resource ${what}. ${ownerMessage(observed)}This resource is currently deployed because of ${ref.kind} ${ref.namespace}/${ref.name}.\n`;
  let conflict = false;
  // Go: a lower reference tier skips the reference check.
  if (claim.reference.tier >= ref.tier && ref.kind !== '') {
    if (ref.kind !== claim.reference.kind || ref.namespace !== claim.reference.namespace || ref.name !== claim.reference.name) conflict = true;
  }
  const owner = ownerOf(observed);
  if (!conflict && owner && (owner.name !== claim.profile.name || owner.kind !== claim.profile.kind)) conflict = true;
  if (!conflict) return { kind: 'owned' };
  const ownerTier = parseTier(a[Annotations.ownerTier]);
  // Go: HasHigherOwnershipPriority — strictly lower tier wins; a tie keeps the current owner.
  if (claim.profile.tier < ownerTier) return { kind: 'takeover', previousOwner: owner, message: conflictText() };
  return { kind: 'conflict', owner, message: conflictText() };
}
