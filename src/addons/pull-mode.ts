// pull-mode: the Resources feature for SveltosClusters with spec.pullMode — the management side never connects to
// the cluster. Instead (libsveltos lib/pullmode RecordResourcesForDeployment / RemoveDeployedResources) it writes, in
// the cluster's namespace of the management cluster, one ConfigurationBundle per referenced ConfigMap/Secret holding
// the rendered, stamped objects (JSON documents in spec.resources, status.hash = sha256 of their JSON) and one
// ConfigurationGroup per ClusterSummary referencing the bundles (contentRef + hash), labelled
// pullmode.projectsveltos.io/{clustername,requestorkind,requestorfeature} and annotated with the requestor name. The
// agent in the managed cluster (`ripple agent --pull`) watches those groups, applies them and writes the group's
// status (status, observedGeneration, observedRequestorHash, failureMessage, lastAppliedTime,
// deployedGroupVersionKind); this handler reads it back into the ClusterSummary's feature status and is re-queued by
// a ConfigurationGroup watch (no polling).
//
// Differences from Sveltos, visible: names are derived from the requestor (config-<hash>) instead of random; objects
// go into bundles as JSON rather than YAML; deploymentType Local policies and Helm charts are refused in pull mode
// (Failed with a message) instead of being handled.
import { createHash } from 'node:crypto';
import { PullMode, type ClusterProfileSpec, type ClusterSummary, type ConfigurationGroup } from '../api/index.js';
import type { ClusterEntry } from '../clusters/index.js';
import { errorMessage, isKindNotInstalled, isNotFound, type KubeObject, type ReconcileResult, type Subscription } from '../kube/index.js';
import { record, type AddonContext } from './context.js';
import { renderDesired, type FeatureFailure, type ResolvedRef } from './desired.js';
import { gvkString, type ProfileKind } from './names.js';
import type { DesiredObject } from './plan.js';
import type { PolicyRenderer } from './render.js';
import { goJSON } from './stamp.js';

const LIB = 'lib.projectsveltos.io/v1beta1';
const GROUP = { apiVersion: LIB, kind: 'ConfigurationGroup' } as const;
const BUNDLE = { apiVersion: LIB, kind: 'ConfigurationBundle' } as const;
const REQUESTOR_KIND = 'ClusterSummary';
const FEATURE = 'Resources';

type Feature = NonNullable<NonNullable<ClusterSummary['status']>['featureSummaries']>[number];
type BundleObject = KubeObject & { spec?: { resources?: string[] }; status?: { hash?: string } };

/** isPullMode says whether the management side must not connect to this cluster (spec.pullMode). */
export function isPullMode(entry: ClusterEntry | undefined): boolean {
  return (entry?.object.spec as { pullMode?: boolean } | undefined)?.pullMode === true;
}

/** PullPass is what the handler needs of one ClusterSummary reconcile. */
export interface PullPass {
  key: string;
  raw: KubeObject;
  cs: ClusterSummary;
  spec: ClusterProfileSpec;
  profile: { kind: ProfileKind; name: string };
  entry: ClusterEntry | undefined;
}

/** PullInputs are the gathered management-cluster inputs of a deployment. */
export interface PullInputs {
  refs: ResolvedRef[];
  mgmtResources: Record<string, KubeObject>;
  /** Hex sha256 of every input (becomes spec.requestorHash). */
  hash: string;
}

/** groupName is the ConfigurationGroup of one requestor (deterministic: no list needed to find it). */
export function groupName(clusterName: string, requestorName: string): string {
  return `config-${createHash('sha256').update(`${clusterName}\n${REQUESTOR_KIND}\n${requestorName}\n${FEATURE}`).digest('hex').slice(0, 20)}`;
}

/** bundleName is the ConfigurationBundle of one requestor's bundle index. */
export function bundleName(clusterName: string, requestorName: string, index: string): string {
  return `config-${createHash('sha256').update(`${clusterName}\n${REQUESTOR_KIND}\n${requestorName}\n${FEATURE}\n${index}`).digest('hex').slice(0, 20)}`;
}

/** bundleHash is Sveltos' getHash: sha256 over the JSON of every object, in order (base64, a []byte). */
export function bundleHash(objects: readonly KubeObject[]): string {
  const h = createHash('sha256');
  for (const o of objects) h.update(goJSON(o));
  return h.digest('base64');
}

/** PlannedBundle is one bundle to write. */
interface PlannedBundle {
  name: string;
  index: string;
  reference: { kind: string; namespace: string; name: string; tier: number };
  objects: KubeObject[];
  hash: string;
}

/** planBundles groups the desired objects by the policyRef they came from (pure). */
export function planBundles(clusterName: string, requestorName: string, desired: readonly DesiredObject[]): PlannedBundle[] {
  const by = new Map<string, PlannedBundle>();
  for (const d of desired) {
    const r = d.claim.reference;
    const index = `${r.kind}/${r.namespace}/${r.name}`;
    let b = by.get(index);
    if (!b) {
      b = { name: bundleName(clusterName, requestorName, index), index, reference: r, objects: [], hash: '' };
      by.set(index, b);
    }
    b.objects.push(d.object);
  }
  const out = [...by.values()].sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0));
  for (const b of out) b.hash = bundleHash(b.objects);
  return out;
}

/** featureFromGroup reads the agent's report (pure): Provisioned only for the current generation and inputs. */
export function featureFromGroup(g: ConfigurationGroup | undefined, requestorHash: string): { status: Feature['status']; failureMessage?: string; gvks?: string[]; lastAppliedTime?: string } {
  const st = g?.status;
  const current = g !== undefined && st?.observedGeneration === g.metadata.generation && (st?.observedRequestorHash ?? requestorHash) === requestorHash;
  if (!g || !current || !st?.status) return { status: 'Provisioning' };
  return {
    status: st.status,
    ...(st.failureMessage ? { failureMessage: st.failureMessage } : {}),
    ...(st.deployedGroupVersionKind ? { gvks: st.deployedGroupVersionKind } : {}),
    ...(st.lastAppliedTime ? { lastAppliedTime: st.lastAppliedTime } : {}),
  };
}

/** PullModeHandler publishes ClusterSummaries of pull-mode clusters; see the file comment. */
export class PullModeHandler {
  private sub: Subscription<KubeObject> | undefined;

  constructor(
    private readonly c: AddonContext,
    private readonly renderer: PolicyRenderer,
    private readonly enqueue: (key: string) => void,
  ) {}

  /** stop ends the ConfigurationGroup watch. */
  async stop(): Promise<void> {
    await this.sub?.unsubscribe();
    this.sub = undefined;
  }

  // The ConfigurationGroup watch starts with the first pull-mode cluster (none: no watch at all).
  private watch(): void {
    if (this.sub) return;
    const wake = (o: KubeObject) => {
      const name = o.metadata.annotations?.[PullMode.requestorNameAnnotation];
      if (name && o.metadata.labels?.[PullMode.requestorKindLabel] === REQUESTOR_KIND) this.enqueue(`${o.metadata.namespace}/${name}`);
    };
    this.sub = this.c.mgmtInformers.subscribe<KubeObject>(
      { ...GROUP, labelSelector: `${PullMode.requestorKindLabel}=${REQUESTOR_KIND}` },
      { onAdd: wake, onUpdate: (_o, n) => wake(n), onDelete: wake },
    );
  }

  private labels(clusterName: string): Record<string, string> {
    return { [PullMode.clusterNameLabel]: clusterName, [PullMode.requestorKindLabel]: REQUESTOR_KIND, [PullMode.requestorFeatureLabel]: FEATURE };
  }

  /** deploy renders, publishes and reports the agent's status; failures are returned as a Failed feature. */
  async deploy(p: PullPass, inputs: PullInputs, prev: Feature | undefined): Promise<{ feature: Feature; result?: ReconcileResult; gvks?: string[] }> {
    this.watch();
    const { raw, cs, spec, profile } = p;
    const hashB64 = Buffer.from(inputs.hash, 'hex').toString('base64');
    const fail = (f: FeatureFailure): { feature: Feature; result?: ReconcileResult } => {
      record(this.c, raw, 'Warning', f.reason, f.message);
      return { result: f.nonRetriable ? undefined : { requeue: true }, feature: { featureID: FEATURE, status: f.nonRetriable ? 'FailedNonRetriable' : 'Failed', hash: hashB64, failureMessage: f.message, consecutiveFailures: (prev?.consecutiveFailures ?? 0) + 1 } };
    };
    const cluster = { type: 'Sveltos' as const, namespace: cs.spec.clusterNamespace, name: cs.spec.clusterName, object: p.entry!.object };
    const rendered = await renderDesired(
      { spec, profile: { ...profile, namespace: raw.metadata.namespace }, cluster, refs: inputs.refs, mgmtResources: inputs.mgmtResources },
      this.renderer,
      // Scope from the management cluster's discovery (the managed one is not reachable); a kind it does not serve
      // is taken as namespaced here and the agent corrects it from its own cluster's discovery.
      async (_target, apiVersion, kind) => {
        try {
          return (await this.c.mgmt.resource({ apiVersion, kind })).namespaced;
        } catch (err) {
          if (isKindNotInstalled(err)) return true;
          throw err;
        }
      },
    );
    if (spec.syncMode === 'DryRun') {
      return fail({ message: `syncMode DryRun is not supported for clusters in pull mode by Ripple yet (no ClusterReport); nothing was published for ${cluster.namespace}/${cluster.name}`, reason: 'NotSupported', nonRetriable: true });
    }
    if (spec.syncMode === 'ContinuousWithDriftDetection') {
      record(this.c, raw, 'Warning', 'NotSupported', `drift detection is not performed in pull-mode cluster ${cluster.namespace}/${cluster.name} yet: deployed as Continuous`);
    }
    if (!rendered.ok) return fail(rendered.failure);
    const local = rendered.desired.find((d) => d.target === 'Local');
    if (local) {
      return fail({ message: `${local.source}: deploymentType Local is not supported for clusters in pull mode by Ripple yet (cluster ${cluster.namespace}/${cluster.name}); nothing was published`, reason: 'NotSupported', nonRetriable: true });
    }
    const bundles = planBundles(cluster.name, cs.metadata.name, rendered.desired);
    const gvks = [...new Set(rendered.desired.map((d) => gvkString(d.object.apiVersion, d.object.kind)))].sort();
    let group: ConfigurationGroup;
    try {
      for (const b of bundles) await this.writeBundle(cluster.namespace, cluster.name, cs.metadata.name, b);
      group = await this.writeGroup(cluster.namespace, cluster.name, cs.metadata.name, {
        action: 'Deploy',
        configurationItem: bundles.map((b) => ({ contentRef: { ...BUNDLE, namespace: cluster.namespace, name: b.name }, hash: b.hash })),
        updatePhase: 'Ready',
        requestorHash: hashB64,
        tier: spec.tier ?? 100,
        continueOnConflict: spec.continueOnConflict === true,
        continueOnError: spec.continueOnError === true,
        leavePolicies: spec.stopMatchingBehavior === 'LeavePolicies',
        sourceRef: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: profile.kind, name: profile.name, ...(profile.kind === 'Profile' ? { namespace: raw.metadata.namespace } : {}) },
        sourceStatus: 'Active',
        deployedGroupVersionKind: gvks,
      });
      await this.deleteStaleBundles(cluster.namespace, cluster.name, cs.metadata.name, new Set(bundles.map((b) => b.name)));
    } catch (err) {
      return fail({ message: `publishing the ConfigurationGroup for pull-mode cluster ${cluster.namespace}/${cluster.name}: ${errorMessage(err)}`, reason: 'DeploymentFailed', nonRetriable: false });
    }
    const f = featureFromGroup(group, hashB64);
    const feature: Feature = { featureID: FEATURE, status: f.status, hash: hashB64, deployedGroupVersionKind: gvks };
    if (f.failureMessage) feature.failureMessage = f.failureMessage;
    if (f.lastAppliedTime) feature.lastAppliedTime = f.lastAppliedTime;
    if (f.status === 'Failed' || f.status === 'FailedNonRetriable') {
      feature.consecutiveFailures = (prev?.consecutiveFailures ?? 0) + (prev?.failureMessage === f.failureMessage ? 0 : 1);
      if (prev?.failureMessage !== f.failureMessage) record(this.c, raw, 'Warning', 'DeploymentFailed', `agent in pull-mode cluster ${cluster.namespace}/${cluster.name}: ${f.failureMessage ?? 'failed'}`);
    } else if (f.status === 'Provisioned' && prev?.status !== 'Provisioned') {
      record(this.c, raw, 'Normal', 'Provisioned', `the agent of pull-mode cluster ${cluster.namespace}/${cluster.name} applied ${rendered.desired.length} object(s)`);
    }
    return { feature, gvks };
  }

  /**
   * withdraw asks the agent to remove what it applied (action Remove, no bundles), and once it reports Removed for
   * that generation deletes the group. 'done' lets the ClusterSummary go; 'waiting' keeps its finalizer.
   */
  async withdraw(p: PullPass): Promise<'done' | 'waiting'> {
    this.watch();
    const { cs, spec } = p;
    const ns = cs.spec.clusterNamespace;
    const name = groupName(cs.spec.clusterName, cs.metadata.name);
    const g = await this.c.mgmt.getIfExists<ConfigurationGroup>({ ...GROUP, namespace: ns, name });
    if (!g) {
      await this.deleteStaleBundles(ns, cs.spec.clusterName, cs.metadata.name, new Set());
      return 'done';
    }
    if (g.spec?.action !== 'Remove') {
      await this.c.mgmt.patch({ ...GROUP, namespace: ns, name }, 'merge', {
        spec: { action: 'Remove', configurationItem: [], leavePolicies: spec.stopMatchingBehavior === 'LeavePolicies', sourceStatus: 'Deleted' },
      });
      await this.deleteStaleBundles(ns, cs.spec.clusterName, cs.metadata.name, new Set());
      return 'waiting';
    }
    const st = g.status;
    if (st?.status === 'Removed' && st.observedGeneration === g.metadata.generation) {
      try {
        await this.c.mgmt.delete({ ...GROUP, namespace: ns, name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return 'done';
    }
    return 'waiting';
  }

  /**
   * terminate forgets a requestor's ConfigurationGroup and bundles without waiting for an agent (Sveltos'
   * TerminateDeploymentTracking): for a cluster that is gone. Nothing to do when none were published.
   */
  async terminate(p: PullPass): Promise<void> {
    const { cs } = p;
    const ns = cs.spec.clusterNamespace;
    await this.deleteStaleBundles(ns, cs.spec.clusterName, cs.metadata.name, new Set());
    try {
      await this.c.mgmt.delete({ ...GROUP, namespace: ns, name: groupName(cs.spec.clusterName, cs.metadata.name) });
    } catch (err) {
      if (!isNotFound(err) && !isKindNotInstalled(err)) throw err;
    }
  }

  private async writeBundle(ns: string, clusterName: string, requestor: string, b: PlannedBundle): Promise<void> {
    const ref = { ...BUNDLE, namespace: ns, name: b.name };
    const resources = b.objects.map((o) => JSON.stringify(o));
    const spec = {
      resources,
      referencedObjectKind: b.reference.kind,
      referencedObjectNamespace: b.reference.namespace,
      referencedObjectName: b.reference.name,
      referenceTier: b.reference.tier,
    };
    const cur = await this.c.mgmt.getIfExists<BundleObject>(ref);
    if (!cur) {
      await this.c.mgmt.create({
        ...BUNDLE,
        metadata: { name: b.name, namespace: ns, labels: this.labels(clusterName), annotations: { [PullMode.requestorNameAnnotation]: requestor, [PullMode.indexAnnotation]: b.index } },
        spec,
      });
    } else if (JSON.stringify(cur.spec?.resources ?? []) !== JSON.stringify(resources)) {
      await this.c.mgmt.patch(ref, 'merge', { spec });
    } else if (cur.status?.hash === b.hash) {
      return;
    }
    await this.c.mgmt.patch(ref, 'merge', { status: { hash: b.hash } }, { subresource: 'status' });
  }

  private async writeGroup(ns: string, clusterName: string, requestor: string, spec: NonNullable<ConfigurationGroup['spec']>): Promise<ConfigurationGroup> {
    const name = groupName(clusterName, requestor);
    const ref = { ...GROUP, namespace: ns, name };
    const cur = await this.c.mgmt.getIfExists<ConfigurationGroup>(ref);
    if (!cur) {
      return this.c.mgmt.create<ConfigurationGroup>({
        ...GROUP,
        metadata: { name, namespace: ns, labels: this.labels(clusterName), annotations: { [PullMode.requestorNameAnnotation]: requestor } },
        spec,
      });
    }
    const same = Object.entries(spec).every(([k, v]) => JSON.stringify((cur.spec as Record<string, unknown> | undefined)?.[k]) === JSON.stringify(v));
    if (same) return cur;
    return this.c.mgmt.patch<ConfigurationGroup>(ref, 'merge', { spec });
  }

  private async deleteStaleBundles(ns: string, clusterName: string, requestor: string, keep: ReadonlySet<string>): Promise<void> {
    let list: { items: KubeObject[] };
    try {
      list = await this.c.mgmt.list<KubeObject>(BUNDLE, { namespace: ns, labelSelector: { matchLabels: this.labels(clusterName) } });
    } catch (err) {
      if (isKindNotInstalled(err)) return;
      throw err;
    }
    for (const b of list.items) {
      if (b.metadata.annotations?.[PullMode.requestorNameAnnotation] !== requestor || keep.has(b.metadata.name)) continue;
      try {
        await this.c.mgmt.delete({ ...BUNDLE, namespace: ns, name: b.metadata.name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

