// The tenant labels cannot be forged (pure decision, used by the embedded API server's admission and mirrored by the
// ValidatingAdmissionPolicy of `ripple manifests tenancy`): when a ServiceAccount creates or updates an EventSource,
// EventTrigger, EventBasedAddOn, ClusterProfile or Profile, the labels `projectsveltos.io/serviceaccount-name` /
// `-namespace` are set from the authenticated identity, and a request naming someone else (those labels or the 2023
// `admin-name` / `admin-namespace`) is refused. ServiceAccounts of the `projectsveltos` namespace (Sveltos/Ripple
// controllers, which copy tenant labels onto generated profiles) and every non-ServiceAccount user are not stamped.
import { Labels, SVELTOS_NAMESPACE } from './keys.js';
import { serviceAccountOfUser, tenantOf } from './tenant-identity.js';

/** TENANT_KINDS are the kinds whose tenant labels are stamped: group → kinds. */
export const TENANT_KINDS: Readonly<Record<string, readonly string[]>> = {
  'lib.projectsveltos.io': ['EventSource', 'EventTrigger', 'EventBasedAddOn'],
  'config.projectsveltos.io': ['ClusterProfile', 'Profile'],
};

/** TENANT_RESOURCES are the same kinds by resource name (for admission rules). */
export const TENANT_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  'lib.projectsveltos.io': ['eventsources', 'eventtriggers', 'eventbasedaddons'],
  'config.projectsveltos.io': ['clusterprofiles', 'profiles'],
};

/** LabelDecision is what admission does with one write. */
export type LabelDecision = { action: 'none' } | { action: 'set'; labels: Record<string, string> } | { action: 'deny'; message: string };

/** tenantLabelDecision decides the tenant labels of a write by `username` on an object of group/kind. */
export function tenantLabelDecision(
  username: string | undefined,
  group: string,
  kind: string,
  labels: Readonly<Record<string, string>> | undefined,
  /** The stored object's labels on an update (undefined on create). */
  oldLabels?: Readonly<Record<string, string>>,
): LabelDecision {
  if (!username || !(TENANT_KINDS[group] ?? []).includes(kind)) return { action: 'none' };
  const sa = serviceAccountOfUser(username);
  if (!sa || sa.namespace === SVELTOS_NAMESPACE) return { action: 'none' };
  if (oldLabels !== undefined) {
    // An update may not take over someone else's object (another tenant's, or the platform admin's).
    const owner = tenantOf(oldLabels);
    const mine = owner.kind === 'tenant' && owner.tenant.name === sa.name && owner.tenant.namespace === sa.namespace;
    if (!mine && !(owner.kind === 'invalid' && oldLabels[Labels.adminName] === sa.name)) {
      const who = owner.kind === 'tenant' ? `tenant ${owner.tenant.namespace}/${owner.tenant.name}` : 'the platform admin';
      return { action: 'deny', message: `this ${kind} belongs to ${who}; ServiceAccount ${sa.namespace}/${sa.name} may change only its own` };
    }
  }
  const l = labels ?? {};
  const claims: [string, string][] = [
    [Labels.serviceAccountName, sa.name],
    [Labels.serviceAccountNamespace, sa.namespace],
    [Labels.adminName, sa.name],
    [Labels.adminNamespace, sa.namespace],
  ];
  for (const [key, want] of claims) {
    const have = l[key];
    if (have !== undefined && have !== want) {
      return { action: 'deny', message: `label ${key} is set from the requesting ServiceAccount ${sa.namespace}/${sa.name}: it may be ${JSON.stringify(want)} or absent, not ${JSON.stringify(have)}` };
    }
  }
  if (l[Labels.serviceAccountName] === sa.name && l[Labels.serviceAccountNamespace] === sa.namespace) return { action: 'none' };
  return { action: 'set', labels: { [Labels.serviceAccountName]: sa.name, [Labels.serviceAccountNamespace]: sa.namespace } };
}
