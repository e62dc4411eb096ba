// reloader.ts: `reloader: true` — when a deployment pass changes a ConfigMap or Secret, the Deployments, StatefulSets
// and DaemonSets deployed by the same profile that consume it (volumes, projected volumes, envFrom, env valueFrom)
// get a rolling restart: their pod template is annotated `kubectl.kubernetes.io/restartedAt` (what `kubectl rollout
// restart` writes), which changes the template and makes the workload controller roll the pods.
// Sveltos does this with a Reloader object in the managed cluster and the agent watching the mounted ConfigMaps/
// Secrets; Ripple restarts in the deployer, right after the change it made (see README "Deliberate differences").
// Go: addon-controller controllers/reloader_utils.go, sveltos-agent reloader controller.
import type { KubeClient, KubeObject } from '../kube/index.js';
import { errorMessage } from '../kube/index.js';
import type { ExecuteOutcome } from './execute.js';
import { groupOf, identityKey, identityOf, type DesiredObject, type ObjectIdentity, type Target } from './plan.js';

/** RESTARTED_AT is the pod-template annotation a rolling restart sets (as `kubectl rollout restart` does). */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** Restart is one workload to restart and why. */
export interface Restart {
  id: ObjectIdentity;
  because: string[];
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** consumedBy lists the ConfigMaps and Secrets (`ConfigMap/name`, `Secret/name`) a workload's pod template uses. */
export function consumedBy(workload: KubeObject): Set<string> {
  const out = new Set<string>();
  const pod = rec(rec(rec(workload.spec).template).spec);
  const add = (kind: 'ConfigMap' | 'Secret', name: unknown) => {
    if (typeof name === 'string' && name) out.add(`${kind}/${name}`);
  };
  for (const v of arr(pod.volumes)) {
    const vol = rec(v);
    add('ConfigMap', rec(vol.configMap).name);
    add('Secret', rec(vol.secret).secretName);
    for (const s of arr(rec(vol.projected).sources)) {
      add('ConfigMap', rec(rec(s).configMap).name);
      add('Secret', rec(rec(s).secret).name);
    }
  }
  for (const c of [...arr(pod.containers), ...arr(pod.initContainers)]) {
    for (const e of arr(rec(c).envFrom)) {
      add('ConfigMap', rec(rec(e).configMapRef).name);
      add('Secret', rec(rec(e).secretRef).name);
    }
    for (const e of arr(rec(c).env)) {
      const from = rec(rec(e).valueFrom);
      add('ConfigMap', rec(from.configMapKeyRef).name);
      add('Secret', rec(from.secretKeyRef).name);
    }
  }
  return out;
}

/**
 * planRestarts returns the workloads of the desired set that consume a ConfigMap/Secret this pass updated (in the
 * same target and namespace), except those the pass created (their pods start with the new content anyway).
 */
export function planRestarts(desired: readonly DesiredObject[], outcome: ExecuteOutcome): Restart[] {
  const changed = new Map<string, string>();
  const created = new Set<string>();
  for (const r of outcome.results) {
    if (!r.wrote) continue;
    if (r.action === 'Create') created.add(identityKey(r.id));
    if (r.action === 'Update' && (r.id.kind === 'ConfigMap' || r.id.kind === 'Secret') && groupOf(r.id.apiVersion) === '') {
      changed.set(`${r.id.target}|${r.id.namespace ?? ''}|${r.id.kind}/${r.id.name}`, `${r.id.kind} ${r.id.namespace ?? ''}/${r.id.name}`);
    }
  }
  if (changed.size === 0) return [];
  const out: Restart[] = [];
  for (const d of desired) {
    if (!WORKLOADS.has(d.object.kind) || groupOf(d.object.apiVersion) !== 'apps') continue;
    const id = identityOf(d.target, d.object);
    if (created.has(identityKey(id))) continue;
    const because = [...consumedBy(d.object)].map((c) => changed.get(`${d.target}|${d.object.metadata.namespace ?? ''}|${c}`)).filter((x): x is string => x !== undefined);
    if (because.length > 0) out.push({ id, because });
  }
  return out;
}

/** restartWorkloads patches each workload's pod template with RESTARTED_AT = now; returns what happened to each. */
export async function restartWorkloads(
  clients: Record<Target, KubeClient | undefined>,
  restarts: readonly Restart[],
  now: string,
  fieldManager: string,
): Promise<{ restart: Restart; result?: KubeObject; error?: string }[]> {
  return Promise.all(
    restarts.map(async (restart) => {
      const { id } = restart;
      try {
        const result = await clients[id.target]!.patch<KubeObject>(
          { apiVersion: id.apiVersion, kind: id.kind, namespace: id.namespace, name: id.name },
          'merge',
          { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: now } } } } },
          { fieldManager: `${fieldManager}-reloader` },
        );
        return { restart, result };
      } catch (err) {
        return { restart, error: `reloader: cannot restart ${id.kind} ${id.namespace ?? ''}/${id.name}: ${errorMessage(err)}` };
      }
    }),
  );
}
