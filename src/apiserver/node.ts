// The node simulator of one virtual cluster: one Ready Node (what a one-node kind cluster has), and the
// kube-root-ca.crt ConfigMap every namespace gets from kube-controller-manager's root CA publisher.
// Go: pkg/kubelet (node status), pkg/controller/certificates/rootcacertpublisher
import type { Cluster, Logger } from './cluster.js';
import { create, internalWrite, mutate, scopeFor } from './registry.js';
import { isStatusError } from './status.js';
import { tokenIssuerOf } from './auth/lookup.js';
import type { ChangeEvent } from './watch.js';

/** ROOT_CA_CONFIGMAP is the ConfigMap the root CA publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

/** nodeNameOf is the name of a cluster's simulated node (kind's convention). */
export function nodeNameOf(cluster: string): string {
  return `${cluster}-control-plane`;
}

/** nodeLabelsOf are the labels the simulated node carries. */
export function nodeLabelsOf(cluster: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': nodeNameOf(cluster),
    'kubernetes.io/os': 'linux',
    'node-role.kubernetes.io/control-plane': '',
  };
}

/** ensureNode creates (or makes Ready again) the cluster's node. */
export function ensureNode(cluster: Cluster): void {
  const name = nodeNameOf(cluster.name);
  const desc = cluster.registry.lookup('', 'v1', 'nodes');
  if (!desc) return;
  const o = internalWrite('kubelet');
  if (!cluster.get('/nodes', undefined, name)) {
    create(scopeFor(cluster, desc, ''), { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: nodeLabelsOf(cluster.name) }, spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], providerID: `ripple://${name}` } }, o);
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const resources = { cpu: '8', 'ephemeral-storage': '100Gi', memory: '16Gi', pods: '110' };
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  mutate(scopeFor(cluster, desc, '', 'status'), name, (n) => {
    const ready = ((n.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
    if (ready?.status === 'True') return false;
    n.status = {
      capacity: resources,
      allocatable: resources,
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: '', systemUUID: '', bootID: '',
        kernelVersion: 'simulated', osImage: 'Ripple simulated node', containerRuntimeVersion: 'ripple://1.0.0',
        kubeletVersion: 'v1.32.0', kubeProxyVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64',
      },
    };
  }, o);
}

/** RootCAPublisher keeps kube-root-ca.crt (the server's CA) in every namespace. */
export class RootCAPublisher {
  private stopped = false;
  private readonly write = internalWrite('root-ca-cert-publisher');

  constructor(
    private readonly cluster: Cluster,
    private readonly caCertificate: string,
    private readonly logger: Logger,
  ) {
    cluster.hub.listen((ev) => this.observe(ev));
    for (const s of cluster.table('/namespaces').objects.values()) this.publish(s.obj.metadata.name!);
  }

  /** stop ends the publisher. */
  stop(): void {
    this.stopped = true;
  }

  private observe(ev: ChangeEvent): void {
    if (this.stopped) return;
    if (ev.storage === '/namespaces' && ev.type === 'ADDED') this.publish(ev.cur!.obj.metadata.name!);
    // Go: the publisher recreates the ConfigMap when it is deleted.
    if (ev.storage === '/configmaps' && ev.type === 'DELETED' && ev.prev!.obj.metadata.name === ROOT_CA_CONFIGMAP) this.publish(ev.prev!.obj.metadata.namespace!);
  }

  private publish(namespace: string): void {
    const ns = this.cluster.get('/namespaces', undefined, namespace);
    if (!ns || ns.obj.metadata.deletionTimestamp || this.cluster.get('/configmaps', namespace, ROOT_CA_CONFIGMAP)) return;
    const desc = this.cluster.registry.lookup('', 'v1', 'configmaps');
    if (!desc) return;
    try {
      create(scopeFor(this.cluster, desc, namespace), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' } },
        data: { 'ca.crt': this.caCertificate },
      }, this.write);
    } catch (e) {
      if (isStatusError(e, 'AlreadyExists') || isStatusError(e, 'Forbidden') || isStatusError(e, 'NotFound')) return;
      this.logger.warn({ err: e instanceof Error ? e.message : String(e), namespace }, 'publishing kube-root-ca.crt failed');
    }
  }
}

const TOKEN_TYPE = 'kubernetes.io/service-account-token';
const SA_NAME = 'kubernetes.io/service-account.name';

/** ServiceAccountTokens fills Secrets of type kubernetes.io/service-account-token (token, ca.crt, namespace), as kube's
 * tokens controller does for the long-lived token Secrets users create. The token is a legacy ServiceAccount JWT signed
 * with the cluster's key: it authenticates as the ServiceAccount while the Secret and the account exist.
 * Go: pkg/controller/serviceaccount/tokens_controller.go */
export class ServiceAccountTokens {
  private stopped = false;
  private readonly write = internalWrite('tokens-controller');

  constructor(
    private readonly cluster: Cluster,
    private readonly caCertificate: string,
    private readonly logger: Logger,
  ) {
    cluster.hub.listen((ev) => this.observe(ev));
    for (const s of cluster.table('/secrets').objects.values()) this.fill(s.obj.metadata.namespace!, s.obj.metadata.name!);
  }

  /** stop ends the controller. */
  stop(): void {
    this.stopped = true;
  }

  private observe(ev: ChangeEvent): void {
    if (this.stopped || ev.storage !== '/secrets' || ev.type === 'DELETED') return;
    const m = ev.cur!.obj.metadata;
    this.fill(m.namespace!, m.name!);
  }

  private fill(namespace: string, name: string): void {
    const s = this.cluster.get('/secrets', namespace, name);
    if (!s || s.obj.type !== TOKEN_TYPE || s.obj.metadata.deletionTimestamp) return;
    const sa = s.obj.metadata.annotations?.[SA_NAME];
    const data = (s.obj.data ?? {}) as Record<string, string>;
    if (!sa || data.token) return;
    const account = this.cluster.get('/serviceaccounts', namespace, sa);
    if (!account) return; // kube deletes such secrets; leaving it unfilled is the visible equivalent
    const desc = this.cluster.registry.lookup('', 'v1', 'secrets');
    if (!desc) return;
    const b64 = (v: string) => Buffer.from(v, 'utf8').toString('base64');
    try {
      mutate(scopeFor(this.cluster, desc, namespace), name, (o) => {
        const d = (o.data ?? {}) as Record<string, string>;
        if (d.token) return false;
        const issuer = tokenIssuerOf(this.cluster);
        if (!issuer) return false;
        o.data = { ...d, token: b64(issuer.legacyToken(namespace, name, sa, account.obj.metadata.uid ?? '')), 'ca.crt': b64(this.caCertificate), namespace: b64(namespace) };
        o.metadata.annotations = { ...(o.metadata.annotations ?? {}), 'kubernetes.io/service-account.uid': account.obj.metadata.uid ?? '' };
      }, this.write);
    } catch (e) {
      if (isStatusError(e, 'Conflict') || isStatusError(e, 'NotFound')) return;
      this.logger.warn({ err: e instanceof Error ? e.message : String(e), secret: `${namespace}/${name}` }, 'filling a service account token Secret failed');
    }
  }
}
