// ownership.test.ts: Sveltos' conflict rules (reference and profile ownership, tiers) and Ripple's adoption.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { ADOPTED_ANNOTATION } from './names.js';
import { decideOwnership, ownerOf, parseTier, type Claim } from './ownership.js';

const claim = (profile = 'p1', tier = 100, refName = 'cm1', refTier = 100): Claim => ({
  reference: { kind: 'ConfigMap', namespace: 'default', name: refName, tier: refTier },
  profile: { kind: 'ClusterProfile', name: profile, tier },
});

const existing = (annotations: Record<string, string> = {}, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns', annotations, ...extra },
});

const stamped = (profile: string, tier: string, refName = 'cm1', refTier = '100') =>
  existing({
    'projectsveltos.io/reference-kind': 'ConfigMap',
    'projectsveltos.io/reference-namespace': 'default',
    'projectsveltos.io/reference-name': refName,
    'projectsveltos.io/reference-tier': refTier,
    'projectsveltos.io/owner-kind': 'ClusterProfile',
    'projectsveltos.io/owner-name': profile,
    'projectsveltos.io/owner-tier': tier,
  });

test('missing object: create; our own object: owned', () => {
  assert.deepEqual(decideOwnership(undefined, claim()), { kind: 'create' });
  assert.deepEqual(decideOwnership(stamped('p1', '100'), claim()), { kind: 'owned' });
});

test('an object no profile deployed is adopted once, then owned', () => {
  assert.deepEqual(decideOwnership(existing(), claim()), { kind: 'adopt' });
  assert.deepEqual(decideOwnership(existing({ [ADOPTED_ANNOTATION]: 'status' }), claim()), { kind: 'owned' });
});

test('another profile: a tie keeps the owner, a lower tier takes over, a higher one conflicts', () => {
  const tie = decideOwnership(stamped('other', '100'), claim('p1', 100));
  assert.equal(tie.kind, 'conflict');
  assert.match((tie as { message: string }).message, /ConfigMap:ns\/x\. The Sveltos profile currently deploying this resource is ClusterProfile other;/);
  assert.deepEqual((tie as { owner?: unknown }).owner, { kind: 'ClusterProfile', name: 'other' });
  const take = decideOwnership(stamped('other', '100'), claim('p1', 99));
  assert.equal(take.kind, 'takeover');
  assert.deepEqual((take as { previousOwner?: unknown }).previousOwner, { kind: 'ClusterProfile', name: 'other' });
  assert.equal(decideOwnership(stamped('other', '10'), claim('p1', 50)).kind, 'conflict');
});

test('same profile, another referenced ConfigMap: conflict unless the reference tier is lower', () => {
  assert.equal(decideOwnership(stamped('p1', '100', 'cm2'), claim('p1', 100, 'cm1')).kind, 'conflict');
  assert.equal(decideOwnership(stamped('p1', '100', 'cm2', '100'), claim('p1', 100, 'cm1', 50)).kind, 'owned');
});

test('old stamps: reference labels and a Sveltos ownerReference still count', () => {
  const labelled = existing({}, { labels: { 'projectsveltos.io/reference-kind': 'ConfigMap', 'projectsveltos.io/reference-namespace': 'default', 'projectsveltos.io/reference-name': 'cm9' } });
  assert.equal(decideOwnership(labelled, claim()).kind, 'takeover'); // no owner-tier: the weakest owner
  const owned = existing({}, { ownerReferences: [{ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', name: 'old', uid: 'u' }] });
  assert.deepEqual(ownerOf(owned), { kind: 'ClusterProfile', name: 'old' });
  assert.equal(decideOwnership(owned, claim()).kind, 'takeover');
});

test('parseTier: unparsable or zero is the weakest', () => {
  assert.equal(parseTier('5'), 5);
  assert.equal(parseTier(undefined), 2 ** 31 - 1);
  assert.equal(parseTier('x'), 2 ** 31 - 1);
  assert.equal(parseTier('0'), 2 ** 31 - 1);
});
