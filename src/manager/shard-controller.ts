// shard-controller.ts: Sveltos' shard-controller for Ripple. It watches the shard keys in use (annotation
// sharding.projectsveltos.io/key on SveltosClusters and Cluster API Clusters) and keeps exactly one manager
// Deployment per key in the management cluster — `ripple manager --leader-elect --shard-key KEY` — creating it when a
// key first appears and deleting it once no cluster carries the key any more. Adding a shard key to a cluster is all
// a user does. Clusters without the annotation are the default manager's (not managed here).
// read (fleet registry, Deployments it owns) → plan (pure) → execute (server-side apply / delete).
import { createHash } from 'node:crypto';
import { Annotations } from '../api/index.js';
import { ClusterRegistry } from '../clusters/index.js';
import { Controller, errorMessage, isNotFound, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { leaseNameForShard } from './shards.js';

/** SHARD_CONTROLLER_FIELD_MANAGER is the field manager (and managed-by label value) of the Deployments it writes. */
export const SHARD_CONTROLLER_FIELD_MANAGER = 'ripple-shard-controller';

/** ShardLabels are the labels on the Deployments the shard controller owns. */
export const ShardLabels = {
  managedBy: 'app.kubernetes.io/managed-by',
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  /** A label-safe digest of the shard key (the key itself, any string, is in the annotation). */
  shardHash: 'ripple.projectsveltos.io/shard-hash',
} as const;

/** ShardDeploymentTemplate is what every shard's manager Deployment is made from. */
export interface ShardDeploymentTemplate {
  /** Namespace of the Deployments (and of the Leases their replicas elect with). */
  namespace: string;
  /** Container image running `ripple` (its entrypoint; the args start with `manager`). */
  image: string;
  /** Replicas per shard: one leads, the others stand by (default 2). */
  replicas?: number;
  /** Extra arguments for every shard's `ripple manager` (e.g. `--agent-mode collect`). */
  args?: readonly string[];
  serviceAccountName?: string;
}

type Deployment = KubeObject & { spec?: unknown };

/** shardHash is the first 16 hex digits of sha256(key): a label value standing for any shard key. */
function shardHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** shardKeysInUse lists the distinct non-empty shard keys of clusters that are not being deleted, sorted. */
export function shardKeysInUse(clusters: readonly KubeObject[]): string[] {
  const keys = new Set<string>();
  for (const c of clusters) {
    const k = c.metadata.annotations?.[Annotations.shardKey];
    if (k && !c.metadata.deletionTimestamp) keys.add(k);
  }
  return [...keys].sort();
}

/** shardDeployment builds the manager Deployment of one shard key (named like its Lease: leaseNameForShard). */
export function shardDeployment(key: string, t: ShardDeploymentTemplate): Deployment {
  const name = leaseNameForShard(key);
  const labels = { [ShardLabels.name]: 'ripple-manager', [ShardLabels.instance]: name, [ShardLabels.managedBy]: SHARD_CONTROLLER_FIELD_MANAGER, [ShardLabels.shardHash]: shardHash(key) };
  const selector = { [ShardLabels.name]: 'ripple-manager', [ShardLabels.instance]: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: t.namespace, labels, annotations: { [Annotations.shardKey]: key } },
    spec: {
      replicas: t.replicas ?? 2,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, [ShardLabels.shardHash]: shardHash(key) }, annotations: { [Annotations.shardKey]: key } },
        spec: {
          ...(t.serviceAccountName ? { serviceAccountName: t.serviceAccountName } : {}),
          // Hardened like the chart's managers (deploy/helm/ripple): non-root, read-only root filesystem, /tmp for
          // downloaded charts.
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'manager',
              image: t.image,
              args: ['manager', '--leader-elect', '--leader-elect-namespace', t.namespace, '--shard-key', key, '--metrics-port', '8080', '--metrics-address', '0.0.0.0', ...(t.args ?? [])],
              ports: [{ name: 'metrics', containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/healthz', port: 'metrics' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

/** ShardAction is one write of a shard-controller pass. */
export type ShardAction = { op: 'apply'; key: string; object: Deployment } | { op: 'delete'; key: string; name: string; uid?: string };

/**
 * planShards (pure) returns the writes that leave exactly one Deployment per shard key in use: apply the desired
 * Deployment of every key (server-side apply is a no-op when nothing changed), delete owned Deployments whose key is
 * no longer used.
 */
export function planShards(keys: readonly string[], owned: readonly Deployment[], t: ShardDeploymentTemplate): ShardAction[] {
  const actions: ShardAction[] = keys.map((key) => ({ op: 'apply', key, object: shardDeployment(key, t) }));
  const wanted = new Set(keys.map((k) => leaseNameForShard(k)));
  for (const d of owned) {
    if (wanted.has(d.metadata.name) || d.metadata.deletionTimestamp) continue;
    actions.push({ op: 'delete', key: d.metadata.annotations?.[Annotations.shardKey] ?? '', name: d.metadata.name, uid: d.metadata.uid });
  }
  return actions;
}

/** ShardControllerOptions configures a ShardController. */
export interface ShardControllerOptions {
  /** Informer factory of the management cluster. */
  informers: InformerFactory;
  template: ShardDeploymentTemplate;
  logger?: Logger;
}

/** ShardController keeps one manager Deployment per shard key in use; see the file comment. */
export class ShardController {
  private readonly registry: ClusterRegistry;
  private readonly controller: Controller;
  private readonly log: Logger;
  private deployments: Subscription<Deployment> | undefined;
  private removeListener: (() => void) | undefined;
  private lastKeys = '';

  constructor(private readonly options: ShardControllerOptions) {
    this.log = (options.logger ?? silentLogger()).child({ component: 'shard-controller' });
    // Every cluster of every shard (no shard key): SveltosClusters and, when installed, Cluster API Clusters.
    this.registry = new ClusterRegistry({ informers: options.informers, logger: options.logger });
    this.controller = new Controller({ name: 'shard-controller', workers: 1, logger: options.logger, reconcile: () => this.reconcile() });
  }

  /** start watches clusters and the Deployments it owns; resolves once both are listed and the first pass queued. */
  async start(): Promise<void> {
    this.registry.start();
    this.removeListener = this.registry.onChange((e) => {
      if (e.kind === 'cluster') this.controller.enqueue('shards');
    });
    this.deployments = this.options.informers.subscribe<Deployment>(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: this.options.template.namespace, labelSelector: `${ShardLabels.managedBy}=${SHARD_CONTROLLER_FIELD_MANAGER}` },
      { onAdd: () => this.controller.enqueue('shards'), onUpdate: () => this.controller.enqueue('shards'), onDelete: () => this.controller.enqueue('shards') },
    );
    await this.registry.waitForSync({ timeoutMs: 60_000 });
    await this.deployments.informer.waitForSync({ timeoutMs: 60_000 });
    this.controller.enqueue('shards');
    this.controller.start();
  }

  /** keys lists the shard keys in use right now. */
  keys(): string[] {
    return shardKeysInUse(this.registry.all().map((e) => e.object));
  }

  private async reconcile(): Promise<void> {
    const keys = this.keys();
    const owned = this.deployments?.informer.cache.list() ?? [];
    const actions = planShards(keys, owned, this.options.template);
    if (keys.join('\0') !== this.lastKeys) {
      this.lastKeys = keys.join('\0');
      this.log.info({ shards: keys }, 'shard keys in use');
    }
    const mgmt = this.options.informers.client;
    for (const a of actions) {
      if (a.op === 'apply') {
        const cur = owned.find((d) => d.metadata.name === a.object.metadata.name);
        // Skip writes that would change nothing we own (replicas/args/image edits by hand are put back).
        if (cur && sameDesired(cur, a.object)) continue;
        await mgmt.apply(a.object, { fieldManager: SHARD_CONTROLLER_FIELD_MANAGER, force: true });
        this.log.info({ shard: a.key, deployment: a.object.metadata.name }, cur ? 'manager Deployment updated' : 'manager Deployment created');
      } else {
        try {
          await mgmt.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: this.options.template.namespace, name: a.name }, { preconditions: a.uid ? { uid: a.uid } : undefined });
          this.log.info({ shard: a.key, deployment: a.name }, 'manager Deployment deleted: no cluster uses its shard key any more');
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
  }

  /** stop ends the watches. */
  async stop(): Promise<void> {
    this.removeListener?.();
    await this.controller.stop();
    await this.deployments?.unsubscribe();
    await this.registry.stop().catch((err) => this.log.warn({ err: errorMessage(err) }, 'stopping the registry failed'));
  }
}

/** sameDesired reports whether an observed Deployment already carries every field of the desired one. */
function sameDesired(cur: Deployment, want: Deployment): boolean {
  return contains(cur, want);
}

function contains(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(have[i], w));
  if (want && typeof want === 'object') {
    if (!have || typeof have !== 'object') return false;
    return Object.entries(want as Record<string, unknown>).every(([k, v]) => contains((have as Record<string, unknown>)[k], v));
  }
  return have === want;
}
