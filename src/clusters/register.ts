// registerCluster: what `ripple register cluster` (and `sveltosctl register cluster`) does in the management cluster —
// the namespace, the kubeconfig Secret `<name>-sveltos-kubeconfig` (key `kubeconfig`) and the SveltosCluster with
// its labels. Idempotent: each step reports created / configured / unchanged. Unlike sveltosctl, labels given are
// merged into the existing ones (the k8s-version label the manager sets survives), and an existing SveltosCluster's
// spec.kubeconfigName is honoured. Go: sveltosctl internal/commands/onboard/cluster.go onboardSveltosCluster
import { isValidLabelValue, isQualifiedName, isDNS1123Label } from '../api/index.js';
import type { KubeClient, KubeObject } from '../kube/index.js';
import { SVELTOS_CLUSTER, SVELTOS_KUBECONFIG_KEY } from './cluster.js';

/** RegisterResult is what happened to one object. */
export type RegisterResult = 'created' | 'configured' | 'unchanged';

/** RegisterAction reports one object registerCluster touched. */
export interface RegisterAction {
  /** kubectl-style resource name, e.g. `secret/edge-sveltos-kubeconfig`. */
  object: string;
  result: RegisterResult;
}

/** RegisterOptions says which cluster to register. */
export interface RegisterOptions {
  namespace: string;
  name: string;
  /** The (self-contained) kubeconfig YAML of the managed cluster. */
  kubeconfig: string;
  /** Labels to set on the SveltosCluster (merged into existing labels). */
  labels?: Record<string, string>;
}

/** validateRegistration returns the problems with a registration request (empty when it is fine). */
export function validateRegistration(o: Pick<RegisterOptions, 'namespace' | 'name' | 'labels'>): string[] {
  const errs: string[] = [];
  for (const [what, v] of [['namespace', o.namespace], ['name', o.name]] as const) {
    const e = isDNS1123Label(v);
    if (e.length > 0) errs.push(`${what} ${JSON.stringify(v)}: ${e.join('; ')}`);
  }
  for (const [k, v] of Object.entries(o.labels ?? {})) {
    const ek = isQualifiedName(k);
    if (ek.length > 0) errs.push(`label key ${JSON.stringify(k)}: ${ek.join('; ')}`);
    const ev = isValidLabelValue(v);
    if (ev.length > 0) errs.push(`label value ${JSON.stringify(v)} (key ${k}): ${ev.join('; ')}`);
  }
  return errs;
}

/** parseLabels parses `k=v,k2=v2` (as sveltosctl --labels); throws on an entry without `=`. */
export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const p = part.trim();
    if (p === '') continue;
    const i = p.indexOf('=');
    if (i <= 0) throw new Error(`invalid label ${JSON.stringify(p)}: expected key=value`);
    out[p.slice(0, i).trim()] = p.slice(i + 1).trim();
  }
  return out;
}

/**
 * registerCluster creates or updates the namespace, kubeconfig Secret and SveltosCluster in the management cluster.
 * Throws the client's errors (KindNotInstalledError when the SveltosCluster CRD is missing, StatusError, …).
 */
export async function registerCluster(mgmt: KubeClient, o: RegisterOptions): Promise<RegisterAction[]> {
  const actions: RegisterAction[] = [];
  // Resolve the SveltosCluster kind first, so a missing CRD fails before anything is written.
  await mgmt.resource(SVELTOS_CLUSTER);

  const ns = await mgmt.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: o.namespace });
  if (!ns) await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } });
  actions.push({ object: `namespace/${o.namespace}`, result: ns ? 'unchanged' : 'created' });

  const clusterRef = { ...SVELTOS_CLUSTER, namespace: o.namespace, name: o.name };
  const existing = await mgmt.getIfExists<KubeObject & { spec?: { kubeconfigName?: string; kubeconfigKeyName?: string } }>(clusterRef);
  const secretName = existing?.spec?.kubeconfigName || `${o.name}-sveltos-kubeconfig`;
  const key = existing?.spec?.kubeconfigKeyName || SVELTOS_KUBECONFIG_KEY;
  const encoded = Buffer.from(o.kubeconfig).toString('base64');
  const secretRef = { apiVersion: 'v1', kind: 'Secret', namespace: o.namespace, name: secretName };
  const secret = await mgmt.getIfExists<KubeObject & { data?: Record<string, string> }>(secretRef);
  if (!secret) {
    await mgmt.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace: o.namespace }, type: 'Opaque', data: { [key]: encoded } });
    actions.push({ object: `secret/${secretName}`, result: 'created' });
  } else if (secret.data?.[key] !== encoded) {
    await mgmt.patch(secretRef, 'merge', { data: { [key]: encoded } });
    actions.push({ object: `secret/${secretName}`, result: 'configured' });
  } else {
    actions.push({ object: `secret/${secretName}`, result: 'unchanged' });
  }

  const labels = o.labels ?? {};
  const objectName = `sveltoscluster.lib.projectsveltos.io/${o.name}`;
  if (!existing) {
    await mgmt.create({
      ...SVELTOS_CLUSTER,
      metadata: { name: o.name, namespace: o.namespace, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
      spec: { kubeconfigKeyName: key },
    });
    actions.push({ object: objectName, result: 'created' });
  } else {
    const cur = existing.metadata.labels ?? {};
    const labelPatch = Object.fromEntries(Object.entries(labels).filter(([k, v]) => cur[k] !== v));
    const specPatch = existing.spec?.kubeconfigKeyName ? undefined : { kubeconfigKeyName: key };
    if (Object.keys(labelPatch).length > 0 || specPatch) {
      await mgmt.patch(clusterRef, 'merge', {
        ...(Object.keys(labelPatch).length > 0 ? { metadata: { labels: labelPatch } } : {}),
        ...(specPatch ? { spec: specPatch } : {}),
      });
      actions.push({ object: objectName, result: 'configured' });
    } else {
      actions.push({ object: objectName, result: 'unchanged' });
    }
  }
  return actions;
}

/**
 * registerPullModeCluster creates (or updates the labels of) a SveltosCluster with spec.pullMode: no kubeconfig
 * Secret — the management side never connects; `ripple agent --pull` in the cluster pulls its configuration.
 * pullMode is immutable: an existing push-mode SveltosCluster of that name is an error.
 */
export async function registerPullModeCluster(mgmt: KubeClient, o: Omit<RegisterOptions, 'kubeconfig'>): Promise<RegisterAction[]> {
  const actions: RegisterAction[] = [];
  await mgmt.resource(SVELTOS_CLUSTER);
  const ns = await mgmt.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: o.namespace });
  if (!ns) await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } });
  actions.push({ object: `namespace/${o.namespace}`, result: ns ? 'unchanged' : 'created' });
  const ref = { ...SVELTOS_CLUSTER, namespace: o.namespace, name: o.name };
  const objectName = `sveltoscluster.lib.projectsveltos.io/${o.name}`;
  const labels = o.labels ?? {};
  const existing = await mgmt.getIfExists<KubeObject & { spec?: { pullMode?: boolean } }>(ref);
  if (!existing) {
    await mgmt.create({ ...SVELTOS_CLUSTER, metadata: { name: o.name, namespace: o.namespace, ...(Object.keys(labels).length > 0 ? { labels } : {}) }, spec: { pullMode: true } });
    actions.push({ object: objectName, result: 'created' });
    return actions;
  }
  if (existing.spec?.pullMode !== true) {
    throw new Error(`SveltosCluster ${o.namespace}/${o.name} is already registered without pull mode, and spec.pullMode is immutable: delete it first (kubectl -n ${o.namespace} delete sveltoscluster ${o.name})`);
  }
  const cur = existing.metadata.labels ?? {};
  const labelPatch = Object.fromEntries(Object.entries(labels).filter(([k, v]) => cur[k] !== v));
  if (Object.keys(labelPatch).length > 0) {
    await mgmt.patch(ref, 'merge', { metadata: { labels: labelPatch } });
    actions.push({ object: objectName, result: 'configured' });
  } else actions.push({ object: objectName, result: 'unchanged' });
  return actions;
}
