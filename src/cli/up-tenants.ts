// ripple up --tenant NAME[:selector]: the tenant admins onboarded on the embedded management cluster (src/tenancy
// onboard.ts), each with a kubeconfig of its own in DIR/tenant-NAME.kubeconfig.
import { resolve } from 'node:path';
import { errorMessage } from '../kube/index.js';
import { MGMT, type Embedded } from '../manager/index.js';
import { onboardTenant, parseTenantFlag, type TenantFlag } from '../tenancy/index.js';
import { UsageError } from './command.js';

/** TENANT_USAGE is the --tenant line of ripple up --help. */
export const TENANT_USAGE = `  --tenant NAME[:SELECTOR]  onboard a tenant admin (repeatable): ServiceAccount NAME/NAME in mgmt with rights on
                            EventSources, EventTriggers, ClusterProfiles and its namespace's Profiles, ConfigMaps and
                            Secrets, a RoleRequest NAME granting it everything in namespace NAME of the clusters
                            matching SELECTOR (e.g. env=prod), and DIR/tenant-NAME.kubeconfig (context tenant-NAME,
                            a 24 h TokenRequest token, no admin credentials)
`;

/** parseTenantFlags turns --tenant values into TenantFlags (UsageError on a bad one). */
export function parseTenantFlags(values: readonly string[] | undefined): TenantFlag[] {
  return (values ?? []).map((v) => {
    try {
      return parseTenantFlag(v);
    } catch (err) {
      throw new UsageError(`--tenant ${v}: ${errorMessage(err)} (expected NAME or NAME:key=value,...)`);
    }
  });
}

/** onboardTenants onboards each tenant and prints where its kubeconfig is. */
export async function onboardTenants(env: Embedded, dataDir: string, tenants: readonly TenantFlag[], out: (s: string) => void): Promise<void> {
  if (tenants.length === 0) return;
  const kc = env.server.kubeconfig(MGMT);
  const cluster = kc.clusters.find((c) => c.name === kc['current-context'])?.cluster ?? kc.clusters[0]?.cluster;
  if (!cluster) throw new Error('the embedded management cluster has no kubeconfig cluster entry');
  for (const t of tenants) {
    const r = await onboardTenant(env.mgmt, t, { kubeconfigPath: resolve(dataDir, `tenant-${t.name}.kubeconfig`), server: cluster.server, certificateAuthorityData: cluster['certificate-authority-data'] });
    out(`  tenant       ${t.name}: ServiceAccount ${t.name}/${t.name}, RoleRequest ${t.name}${t.clusterSelector ? '' : ' (no clusters yet: set spec.clusterSelector)'}; kubectl --kubeconfig ${r.kubeconfigPath} (context ${r.context}, token expires ${r.expiresAt})`);
  }
}
