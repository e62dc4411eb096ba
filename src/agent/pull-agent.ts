// pull-agent: `ripple agent --pull` — the agent of a SveltosCluster in pull mode (Sveltos' sveltos-applier). It holds
// a credential for the management cluster (outbound only; the management side never connects to this cluster) and
// local credentials for its own cluster. It watches the ConfigurationGroups of its cluster (cluster namespace, label
// pullmode.projectsveltos.io/clustername=NAME), and for each one:
//   - updatePhase Preparing: waits (the management side is still writing);
//   - action Deploy: reads the referenced ConfigurationBundles (their status.hash must equal the group's item hash,
//     else it waits for the bundle), applies every resource with server-side apply (namespace adjusted from this
//     cluster's discovery, missing namespaces created, label pullmode.ripple.dev/configuration-group=<group>), then
//     deletes what it applied for this group earlier that is no longer wanted (stale);
//   - action Remove, or the group being deleted: deletes everything it applied for the group (leavePolicies: keeps
//     the objects and drops its label);
// and reports in the group's status: status Provisioned / Failed / Removed, failureMessage, observedGeneration,
// observedRequestorHash, lastAppliedTime, deployedGroupVersionKind. A finalizer (pullmode.ripple.dev/agent) lets it
// see deletions. It also writes its cluster's SveltosCluster status (ready, version, connectionStatus Healthy,
// agentLastReportTime) when it starts and after each report. Event-driven: watches, per-key backoff on failure.
import { parse as parseYaml } from 'yaml';
import { PullMode, type ConfigurationGroup } from '../api/index.js';
import {
  Controller,
  InformerFactory,
  errorMessage,
  isAlreadyExists,
  isKindNotInstalled,
  isNotFound,
  splitKey,
  type KubeClient,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';

const LIB = 'lib.projectsveltos.io/v1beta1';
const GROUP = { apiVersion: LIB, kind: 'ConfigurationGroup' } as const;
const BUNDLE = { apiVersion: LIB, kind: 'ConfigurationBundle' } as const;
const SVELTOS_CLUSTER = { apiVersion: LIB, kind: 'SveltosCluster' } as const;
/** PULL_FIELD_MANAGER is the field manager of what the pulling agent applies. */
export const PULL_FIELD_MANAGER = 'ripple-pull-agent';

/** PullAgentOptions configures a pulling agent. */
export interface PullAgentOptions {
  /** The management cluster (a credential limited to the cluster namespace is enough). */
  mgmt: KubeClient;
  /** This cluster. */
  local: KubeClient;
  clusterNamespace: string;
  clusterName: string;
  logger?: Logger;
  fieldManager?: string;
  /** Clock (RFC 3339 times in status). */
  now?: () => Date;
}

/** PullAgent is a running pulling agent. */
export interface PullAgent {
  /** ready resolves once the ConfigurationGroups are listed. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

type Bundle = KubeObject & { spec?: { resources?: string[] }; status?: { hash?: string } };
type GroupStatus = NonNullable<ConfigurationGroup['status']>;
type Group = KubeObject & { spec?: ConfigurationGroup['spec']; status?: ConfigurationGroup['status'] };

/** gvkOf is `Kind.version.group` (Sveltos' deployedGroupVersionKind format). */
function gvkOf(apiVersion: string, kind: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? `${kind}.${apiVersion}.` : `${kind}.${apiVersion.slice(i + 1)}.${apiVersion.slice(0, i)}`;
}

function parseGvk(s: string): { apiVersion: string; kind: string } | undefined {
  const m = /^([^.]+)\.([^.]+)\.(.*)$/.exec(s);
  if (!m) return undefined;
  return { kind: m[1]!, apiVersion: m[3] ? `${m[3]}/${m[2]}` : m[2]! };
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** parseBundleResource reads one spec.resources entry (JSON or YAML, one object). */
export function parseBundleResource(text: string): KubeObject {
  const v = parseYaml(text) as unknown;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a Kubernetes object');
  const o = v as KubeObject;
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string') {
    throw new Error(`apiVersion, kind and metadata.name are required (got ${JSON.stringify(text.slice(0, 80))})`);
  }
  return o;
}

/** unsupportedFields names the ConfigurationGroup settings this agent would otherwise silently ignore. */
export function unsupportedFields(spec: NonNullable<ConfigurationGroup['spec']>): string[] {
  const out: string[] = [];
  if (spec.driftDetection) out.push('driftDetection');
  if (spec.reloader) out.push('reloader');
  if (spec.serviceAccountName || spec.serviceAccountNamespace) out.push('serviceAccountName/serviceAccountNamespace (impersonation)');
  for (const k of ['validateHealths', 'preDeployChecks', 'postDeleteChecks', 'preDeleteChecks'] as const) if ((spec[k] ?? []).length > 0) out.push(k);
  if (spec.maxConsecutiveFailures !== undefined) out.push('maxConsecutiveFailures');
  return out;
}

class GroupError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** startPullAgent starts watching the cluster's ConfigurationGroups; see the file comment. */
export function startPullAgent(o: PullAgentOptions): PullAgent {
  const log = (o.logger ?? silentLogger()).child({ component: 'pull-agent', cluster: `${o.clusterNamespace}/${o.clusterName}` });
  const fieldManager = o.fieldManager ?? PULL_FIELD_MANAGER;
  const now = o.now ?? (() => new Date());
  const informers = new InformerFactory(o.mgmt, { logger: o.logger });
  const controller = new Controller({ name: 'pull-agent', workers: 2, logger: o.logger, reconcile: (key) => reconcile(key) });
  const sub: Subscription<Group> = informers.subscribe<Group>({
    ...GROUP,
    namespace: o.clusterNamespace,
    labelSelector: { matchLabels: { [PullMode.clusterNameLabel]: o.clusterName } },
  });
  controller.watch(sub.informer);
  controller.start();
  const scopes = new Map<string, boolean>();
  const namespaces = new Set<string>();
  let version: string | undefined;

  async function heartbeat(): Promise<void> {
    try {
      version ??= (await o.local.version({ timeoutMs: 10_000 })).gitVersion;
      await o.mgmt.patch(
        { ...SVELTOS_CLUSTER, namespace: o.clusterNamespace, name: o.clusterName },
        'merge',
        { status: { ready: true, version, connectionStatus: 'Healthy', connectionFailures: 0, failureMessage: null, agentLastReportTime: rfc3339(now()) } },
        { subresource: 'status' },
      );
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'cannot write the SveltosCluster status (heartbeat); check the management credential allows sveltosclusters/status patch in the cluster namespace');
    }
  }

  async function namespaced(apiVersion: string, kind: string): Promise<boolean> {
    const k = `${apiVersion}|${kind}`;
    let v = scopes.get(k);
    if (v === undefined) {
      v = (await o.local.resource({ apiVersion, kind })).namespaced;
      scopes.set(k, v);
    }
    return v;
  }

  async function ensureNamespace(ns: string): Promise<void> {
    if (namespaces.has(ns)) return;
    if (!(await o.local.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: ns }))) {
      try {
        await o.local.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    namespaces.add(ns);
  }

  /** applied lists what this agent applied for a group, over the given kinds. */
  async function applied(group: string, gvks: Iterable<string>): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const g of new Set(gvks)) {
      const gvk = parseGvk(g);
      if (!gvk) continue;
      try {
        out.push(...(await o.local.list<KubeObject>(gvk, { labelSelector: { matchLabels: { [PullMode.appliedByGroupLabel]: group } } })).items);
      } catch (err) {
        if (!isKindNotInstalled(err)) throw err;
      }
    }
    return out;
  }

  async function withdraw(g: Group, keep: ReadonlySet<string>, leave: boolean, gvks: Iterable<string>): Promise<number> {
    let n = 0;
    for (const obj of await applied(g.metadata.name, gvks)) {
      const id = `${obj.apiVersion}|${obj.kind}|${obj.metadata.namespace ?? ''}|${obj.metadata.name}`;
      if (keep.has(id)) continue;
      const ref = { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name };
      try {
        if (leave) await o.local.patch(ref, 'json', [{ op: 'remove', path: `/metadata/labels/${PullMode.appliedByGroupLabel.replace(/~/g, '~0').replace(/\//g, '~1')}` }]);
        else await o.local.delete(ref);
        n++;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return n;
  }

  async function writeStatus(g: Group, status: GroupStatus): Promise<void> {
    await o.mgmt.patch({ ...GROUP, namespace: g.metadata.namespace, name: g.metadata.name }, 'merge', { status }, { subresource: 'status' });
    await heartbeat();
  }

  async function fetchBundles(g: Group): Promise<KubeObject[]> {
    const objects: KubeObject[] = [];
    for (const [i, item] of (g.spec?.configurationItem ?? []).entries()) {
      const ref = item.contentRef;
      if (!ref?.name || (ref.kind && ref.kind !== 'ConfigurationBundle')) throw new GroupError(`configurationItem[${i}]: contentRef must name a ConfigurationBundle`, false);
      const b = await o.mgmt.getIfExists<Bundle>({ ...BUNDLE, namespace: ref.namespace || g.metadata.namespace, name: ref.name });
      if (!b) throw new GroupError(`configurationItem[${i}]: ConfigurationBundle ${ref.name} not found (yet)`, true);
      if (item.hash && b.status?.hash !== item.hash) throw new GroupError(`configurationItem[${i}]: ConfigurationBundle ${ref.name} is not at the expected content yet`, true);
      for (const [j, text] of (b.spec?.resources ?? []).entries()) {
        try {
          objects.push(parseBundleResource(text));
        } catch (err) {
          throw new GroupError(`ConfigurationBundle ${ref.name} resources[${j}]: ${errorMessage(err)}`, false);
        }
      }
    }
    return objects;
  }

  async function deploy(g: Group): Promise<GroupStatus> {
    const spec = g.spec ?? {};
    const unhonoured = unsupportedFields(spec);
    if (unhonoured.length > 0) throw new GroupError(`this agent does not implement ${unhonoured.join(', ')} yet; nothing was applied`, false);
    const objects = await fetchBundles(g);
    const keep = new Set<string>();
    const gvks = new Set<string>();
    const errors: string[] = [];
    for (const obj of objects) {
      const what = `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
      try {
        const md = { ...obj.metadata, labels: { ...(obj.metadata.labels ?? {}), [PullMode.appliedByGroupLabel]: g.metadata.name } };
        if (await namespaced(obj.apiVersion, obj.kind)) {
          md.namespace = md.namespace || 'default';
          await ensureNamespace(md.namespace);
        } else {
          delete md.namespace;
        }
        if (!spec.dryRun) await o.local.apply({ ...obj, metadata: md }, { fieldManager, force: true });
        keep.add(`${obj.apiVersion}|${obj.kind}|${md.namespace ?? ''}|${obj.metadata.name}`);
        gvks.add(gvkOf(obj.apiVersion, obj.kind));
      } catch (err) {
        errors.push(`${what}: ${errorMessage(err)}`);
        if (!spec.continueOnError) break;
      }
    }
    const prev = [...(g.status?.deployedGroupVersionKind ?? []), ...(spec.deployedGroupVersionKind ?? [])];
    // Stale objects are removed only after a complete pass (an early stop must not look like "no longer wanted").
    const removed = errors.length === 0 && !spec.dryRun ? await withdraw(g, keep, false, [...prev, ...gvks]) : 0;
    if (removed > 0) log.info({ group: g.metadata.name, removed }, 'removed objects no longer in the ConfigurationGroup');
    const status: GroupStatus = {
      status: errors.length === 0 ? 'Provisioned' : 'Failed',
      observedGeneration: g.metadata.generation,
      lastAppliedTime: rfc3339(now()),
      deployedGroupVersionKind: [...new Set([...gvks, ...(errors.length > 0 ? prev : [])])].sort(),
    };
    if (spec.requestorHash) status.observedRequestorHash = spec.requestorHash;
    (status as Record<string, unknown>).failureMessage = errors.length > 0 ? errors.join('\n') : null;
    return status;
  }

  async function reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const g = sub.informer.cache.get(namespace, name);
    if (!g) return;
    const ref = { ...GROUP, namespace: g.metadata.namespace, name: g.metadata.name };
    const finalizers = g.metadata.finalizers ?? [];
    const gvks = [...(g.status?.deployedGroupVersionKind ?? []), ...(g.spec?.deployedGroupVersionKind ?? [])];
    if (g.metadata.deletionTimestamp) {
      if (!finalizers.includes(PullMode.agentFinalizer)) return;
      const n = await withdraw(g, new Set(), g.spec?.leavePolicies === true, gvks);
      log.info({ group: name, objects: n, leavePolicies: g.spec?.leavePolicies === true }, 'ConfigurationGroup deleted: withdrawn');
      await o.mgmt.patch(ref, 'json', [
        { op: 'test', path: '/metadata/finalizers', value: finalizers },
        { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== PullMode.agentFinalizer) },
      ]);
      return;
    }
    if (!finalizers.includes(PullMode.agentFinalizer)) {
      await o.mgmt.patch(ref, 'merge', { metadata: { finalizers: [...finalizers, PullMode.agentFinalizer] } });
      return; // the update re-queues us
    }
    if (g.spec?.updatePhase === 'Preparing') return;
    const st = g.status;
    const done = st?.observedGeneration === g.metadata.generation && (st?.observedRequestorHash ?? '') === (g.spec?.requestorHash ?? '') && (st?.status === 'Provisioned' || st?.status === 'Removed');
    if (done) return;
    if (g.spec?.action === 'Remove') {
      const n = await withdraw(g, new Set(), g.spec.leavePolicies === true, gvks);
      log.info({ group: name, objects: n }, 'ConfigurationGroup action Remove: withdrawn');
      const status: GroupStatus = { status: 'Removed', observedGeneration: g.metadata.generation, lastAppliedTime: rfc3339(now()), deployedGroupVersionKind: [] };
      if (g.spec.requestorHash) status.observedRequestorHash = g.spec.requestorHash;
      (status as Record<string, unknown>).failureMessage = null;
      await writeStatus(g, status);
      return;
    }
    let status: GroupStatus;
    let result: ReconcileResult | undefined;
    try {
      status = await deploy(g);
      result = status.status === 'Failed' ? { requeue: true } : undefined;
      log.info({ group: name, status: status.status, generation: g.metadata.generation }, 'ConfigurationGroup applied');
    } catch (err) {
      const retry = err instanceof GroupError ? err.retry : true;
      status = { status: retry ? 'Provisioning' : 'FailedNonRetriable', observedGeneration: g.metadata.generation, failureMessage: errorMessage(err) };
      if (g.spec?.requestorHash) status.observedRequestorHash = g.spec.requestorHash;
      log.warn({ group: name, err: errorMessage(err) }, 'cannot apply the ConfigurationGroup');
      result = retry ? { requeue: true } : undefined;
    }
    await writeStatus(g, status);
    return result;
  }

  const ready = (async () => {
    await sub.informer.waitForSync({ timeoutMs: 60_000 });
    await heartbeat();
  })();
  ready.catch(() => undefined);

  return {
    ready,
    async stop() {
      await controller.stop();
      await sub.unsubscribe();
      await informers.stop();
    },
  };
}
