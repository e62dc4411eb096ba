// crds.ts: installing Ripple's CustomResourceDefinitions (what `ripple manifests crds` prints) into a cluster with
// server-side apply, and waiting until the API server serves them — `ripple manager --install-crds` and `ripple up`.
import { generateCrds, type CustomResourceDefinition } from '../api/index.js';
import { sleep, type KubeClient, type KubeObject } from '../kube/index.js';

/** CRD_FIELD_MANAGER is the field manager of CRDs Ripple installs. */
export const CRD_FIELD_MANAGER = 'ripple-install';

/** InstallResult counts what installCrds did. */
export interface InstallResult {
  created: string[];
  updated: string[];
  unchanged: string[];
}

type CrdObject = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

/**
 * installCrds server-side applies the given CRDs (default: every CRD Ripple serves), then waits until each is
 * Established (timeoutMs, default 30 s). Applying is idempotent: an unchanged CRD keeps its resourceVersion.
 */
export async function installCrds(
  client: KubeClient,
  o: { crds?: readonly (CustomResourceDefinition | KubeObject)[]; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<InstallResult> {
  const crds = (o.crds ?? generateCrds()) as KubeObject[];
  const result: InstallResult = { created: [], updated: [], unchanged: [] };
  await Promise.all(
    crds.map(async (crd) => {
      const before = await client.getIfExists<CrdObject>({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
      const after = await client.apply<CrdObject>(crd, { fieldManager: CRD_FIELD_MANAGER, force: true });
      const bucket = !before ? result.created : before.metadata.resourceVersion === after.metadata.resourceVersion ? result.unchanged : result.updated;
      bucket.push(crd.metadata.name);
    }),
  );
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  for (const crd of crds) {
    for (;;) {
      const cur = await client.getIfExists<CrdObject>({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
      if (cur?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${crd.metadata.name} is not Established after ${o.timeoutMs ?? 30_000} ms`);
      await sleep(100, o.signal);
    }
  }
  for (const list of Object.values(result)) list.sort();
  return result;
}
