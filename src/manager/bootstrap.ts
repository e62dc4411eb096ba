// bootstrap.ts: what a fresh management cluster needs before the controllers have anything to do — the namespace
// Sveltos installs into, and the management cluster registered as a target of its own (`mgmt/mgmt`).
import { MANAGEMENT_CLUSTER, registerCluster, type RegisterAction } from '../clusters/index.js';
import { isAlreadyExists, type KubeClient } from '../kube/index.js';

/** SVELTOS_NAMESPACE is where Sveltos (and Ripple) keep instantiated ConfigMaps/Secrets, Leases and agent state. */
export const SVELTOS_NAMESPACE = 'projectsveltos';

/** ensureNamespace creates a namespace unless it exists. */
export async function ensureNamespace(client: KubeClient, name: string): Promise<'created' | 'unchanged'> {
  if (await client.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name })) return 'unchanged';
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return 'created';
  } catch (err) {
    if (isAlreadyExists(err)) return 'unchanged';
    throw err;
  }
}

/**
 * registerManagementCluster registers the management cluster itself as SveltosCluster `mgmt/mgmt` (Sveltos' name for
 * it), with kubeconfigYaml — a self-contained kubeconfig reaching the management cluster — in its Secret.
 */
export function registerManagementCluster(client: KubeClient, kubeconfigYaml: string, labels?: Record<string, string>): Promise<RegisterAction[]> {
  return registerCluster(client, { ...MANAGEMENT_CLUSTER, kubeconfig: kubeconfigYaml, labels });
}
